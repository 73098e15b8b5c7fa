#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    cin >> t;
    while (t--) {
        int n;
        cin >> n;
        bool found = false;
        for (int i = 0; i < n; i++) {
            long long x;
            cin >> x;
            if (x == 0) found = true;
        }
        cout << (found ? "YES" : "NO") << "\n";
    }
}
