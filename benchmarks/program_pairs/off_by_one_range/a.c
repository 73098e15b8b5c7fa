#include <stdio.h>
int main(void) {
    long long l, r, k;
    scanf("%lld %lld %lld", &l, &r, &k);
    printf("%lld\n", r / k - l / k);
    return 0;
}
