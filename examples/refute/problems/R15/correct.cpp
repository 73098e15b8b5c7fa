#include <bits/stdc++.h>
using namespace std;

vector<int> parent;

int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    parent.resize(n + 1);
    iota(parent.begin(), parent.end(), 0);
    int components = n;
    for (int i = 0; i < m; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        int a = find(u), b = find(v);
        if (a != b) {
            parent[a] = b;
            components--;
        }
    }
    printf("%d\n", components);
}
