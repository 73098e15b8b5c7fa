#include <bits/stdc++.h>
int main() {
    int n; std::cin >> n;
    long long best = LLONG_MIN;
    for (int i = 0; i < n; i++) { long long x; std::cin >> x; best = std::max(best, x); }
    std::cout << best << "\n";
}
