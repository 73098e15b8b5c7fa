n = int(input())
a = sorted(map(int, input().split()))
print(min((a[i + 1] - a[i] for i in range(n - 1)), default=0))
