#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<vector<int>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        adj[u].push_back(v);
        adj[v].push_back(u);
    }
    vector<int> colour(n + 1, -1);
    bool ok = true;
    for (int start = 1; start <= n; start++) {
        if (colour[start] != -1) continue;
        queue<int> todo;
        colour[start] = 0;
        todo.push(start);
        while (!todo.empty()) {
            int u = todo.front();
            todo.pop();
            for (int v : adj[u]) {
                if (colour[v] == -1) {
                    colour[v] = colour[u] ^ 1;
                    todo.push(v);
                } else if (colour[v] == colour[u]) {
                    ok = false;
                }
            }
        }
    }
    puts(ok ? "YES" : "NO");
}
