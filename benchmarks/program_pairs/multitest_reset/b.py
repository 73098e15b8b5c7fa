from collections import Counter
t = int(input())
for _ in range(t):
    n = int(input())
    print(max(Counter(input().split()).values()))
