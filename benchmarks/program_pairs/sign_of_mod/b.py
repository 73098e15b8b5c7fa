x, m = map(int, input().split())
print(x % m)
