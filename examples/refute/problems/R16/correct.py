import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
degree = [0] * (n + 1)
for i in range(n - 1):
    degree[int(data[1 + 2 * i])] += 1
    degree[int(data[2 + 2 * i])] += 1
print(sum(1 for v in range(1, n + 1) if degree[v] == 1))
