#include <bits/stdc++.h>
int main() { int n; std::cin >> n; for (int i = 1; i <= n; i++) std::cout << i * 2 << "\n"; }
