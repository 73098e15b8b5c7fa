#include <bits/stdc++.h>
int main() { long long x, m; std::cin >> x >> m; std::cout << x % m << "\n"; }
