import sys

data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
print(sum(map(int, data[2:2 + n])) % m)
