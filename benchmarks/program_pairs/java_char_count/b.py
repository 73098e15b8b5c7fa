n = int(input())
s = input().strip()
best = run = 1
for i in range(1, n):
    run = run + 1 if s[i] == s[i - 1] else 1
    best = max(best, run)
print(best)
