n = int(input())
scores = list(map(int, input().split()))
order = sorted(range(n), key=lambda i: -scores[i])
print(*(i + 1 for i in order))
