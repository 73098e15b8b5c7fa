#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    cin >> t;
    while (t--) {
        long long n;
        cin >> n;
        long long root = (long long)sqrt((double)n);
        while (root > 0 && (__int128)root * root > n) root--;
        while ((__int128)(root + 1) * (root + 1) <= n) root++;
        cout << root << "\n";
    }
}
