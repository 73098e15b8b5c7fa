#include <bits/stdc++.h>
int main() {
    int n; std::cin >> n;
    std::vector<long long> a(n);
    for (auto &x : a) std::cin >> x;
    std::sort(a.begin(), a.end());
    long long best = LLONG_MAX;
    for (int i = 1; i < n; i++) best = std::min(best, a[i] - a[i - 1]);
    std::cout << best << "\n";
}
