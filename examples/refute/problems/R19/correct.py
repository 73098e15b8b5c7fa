n = int(input())
a = list(map(int, input().split()))
best = a[0] - a[1]
highest = a[0]
for x in a[1:]:
    best = max(best, highest - x)
    highest = max(highest, x)
print(best)
