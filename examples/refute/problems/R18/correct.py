t = int(input())
for _ in range(t):
    n = int(input())
    a = list(map(int, input().split()))
    print("YES" if len({x % 2 for x in a}) == 1 else "NO")
