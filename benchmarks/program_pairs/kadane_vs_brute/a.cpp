#include <bits/stdc++.h>
int main() {
    int n; std::cin >> n;
    long long best = LLONG_MIN, cur = 0;
    for (int i = 0; i < n; i++) { long long x; std::cin >> x; cur = std::max(x, cur + x); best = std::max(best, cur); }
    std::cout << best << "\n";
}
