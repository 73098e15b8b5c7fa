#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    cin >> t;
    while (t--) {
        long long n, k;
        cin >> n >> k;
        long long lo = 1, hi = 1000000000;
        while (lo < hi) {
            long long mid = (lo + hi) / 2;
            if (mid - mid / n >= k) hi = mid;
            else lo = mid + 1;
        }
        cout << lo << "\n";
    }
}
