n = int(input())
xs = list(map(int, input().split())) if n else []
total = sum(xs)
print(int(total / n) if n else 0)
