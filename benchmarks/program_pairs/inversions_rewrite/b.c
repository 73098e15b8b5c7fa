#include <stdio.h>
int a[1000];
int main(void) {
    int n; long long c = 0;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) if (a[i] > a[j]) c++;
    printf("%lld\n", c);
    return 0;
}
