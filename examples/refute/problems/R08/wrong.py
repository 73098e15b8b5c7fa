n = int(input())
a = sorted(map(int, input().split()))
best = float("inf")
for i in range(n - 1):
    best = min(best, a[i + 1] - a[i])
print(best)
