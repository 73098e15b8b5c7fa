#include <bits/stdc++.h>
using namespace std;

vector<int> parent;

int find(int x) {
    while (parent[x] != x) x = parent[x];
    return x;
}

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    parent.resize(n + 1);
    iota(parent.begin(), parent.end(), 0);
    for (int i = 0; i < m; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        if (find(u) != find(v)) parent[u] = find(v);
    }
    int components = 0;
    for (int v = 1; v <= n; v++)
        if (parent[v] == v) components++;
    printf("%d\n", components);
}
