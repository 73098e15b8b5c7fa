t = int(input())
for _ in range(t):
    n = int(input())
    print(len(set(input().split())))
