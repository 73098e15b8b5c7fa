#include <stdio.h>
int main(void) {
    int n; long long s = 0, x;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) { scanf("%lld", &x); s += x; }
    printf("%lld\n", s / n);
    return 0;
}
