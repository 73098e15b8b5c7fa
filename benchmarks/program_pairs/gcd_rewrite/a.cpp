#include <bits/stdc++.h>
long long g(long long a, long long b) { while (b) { long long t = a % b; a = b; b = t; } return a; }
int main() { int n; std::cin >> n; long long r = 0; for (int i = 0; i < n; i++) { long long x; std::cin >> x; r = g(r, x); }
             std::cout << r << "\n"; }
