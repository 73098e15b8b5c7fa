from collections import Counter

n, k = map(int, input().split())
a = list(map(int, input().split()))
seen = Counter()
count = 0
for value in a:
    count += seen[k - value]
    seen[value] += 1
print(count)
