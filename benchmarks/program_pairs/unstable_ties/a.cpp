#include <bits/stdc++.h>
int main() {
    int n; std::cin >> n;
    std::vector<std::pair<int,int>> v(n);
    for (int i = 0; i < n; i++) { std::cin >> v[i].first; v[i].second = i + 1; }
    std::sort(v.begin(), v.end(), std::greater<std::pair<int,int>>());
    for (auto &p : v) std::cout << p.second << " ";
    std::cout << "\n";
}
