#include <bits/stdc++.h>
using namespace std;

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        scanf("%d", &n);
        vector<char> seen(n + 1, 0);
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            int x;
            scanf("%d", &x);
            if (!seen[x]) {
                seen[x] = 1;
                distinct++;
            }
        }
        printf("%d\n", distinct);
    }
}
