#include <bits/stdc++.h>
std::set<int> seen;
int main() {
    int t; std::cin >> t;
    while (t--) {
        int n; std::cin >> n;
        for (int i = 0; i < n; i++) { int x; std::cin >> x; seen.insert(x); }
        std::cout << seen.size() << "\n";
    }
}
