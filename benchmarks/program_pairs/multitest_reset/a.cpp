#include <bits/stdc++.h>
int cnt[1001];
int main() {
    int t; std::cin >> t;
    while (t--) {
        int n; std::cin >> n;
        std::memset(cnt, 0, sizeof cnt);
        int best = 0;
        for (int i = 0; i < n; i++) { int x; std::cin >> x; best = std::max(best, ++cnt[x]); }
        std::cout << best << "\n";
    }
}
