#include <bits/stdc++.h>
using namespace std;

const long long INF = 1e9;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<long long> a(n), b(n);
    for (auto &x : a) cin >> x;
    for (auto &x : b) cin >> x;
    int first = -1, second = -1;
    for (int j = 0; j < n; j++) {
        if (first == -1 || b[j] < b[first]) {
            second = first;
            first = j;
        } else if (second == -1 || b[j] < b[second]) {
            second = j;
        }
    }
    long long best = INF;
    for (int i = 0; i < n; i++) {
        int j = (i == first) ? second : first;
        best = min(best, a[i] + b[j]);
    }
    cout << best << "\n";
}
