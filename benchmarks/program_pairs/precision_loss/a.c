#include <stdio.h>
int main(void) {
    int n; double s = 0, x;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) { scanf("%lf", &x); s += x; }
    printf("%.2f\n", s / n);
    return 0;
}
