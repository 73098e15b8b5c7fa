#include <bits/stdc++.h>
using namespace std;

bool seen[200005];

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        scanf("%d", &n);
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            int x;
            scanf("%d", &x);
            if (!seen[x]) {
                seen[x] = true;
                distinct++;
            }
        }
        printf("%d\n", distinct);
    }
}
