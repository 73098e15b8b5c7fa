#include <stdio.h>
int main(void) { long long n; scanf("%lld", &n); puts(n % 2 == 0 ? "YES" : "NO"); return 0; }
