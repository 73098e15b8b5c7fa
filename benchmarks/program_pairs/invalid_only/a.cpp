#include <bits/stdc++.h>
int main() {
    int n; std::cin >> n;
    std::vector<int> a(n);
    for (auto &x : a) std::cin >> x;
    std::cout << a.at(0) + a.at(n - 1) << "\n";
}
