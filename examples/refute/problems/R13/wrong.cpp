#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    map<int, int> count;
    int pairs = 0;
    for (int i = 0; i < n; i++) {
        int x;
        cin >> x;
        pairs += count[x];
        count[x]++;
    }
    cout << pairs << "\n";
}
