#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    cin >> t;
    while (t--) {
        long long n;
        cin >> n;
        long long root = (long long)sqrt((double)n);
        cout << root << "\n";
    }
}
