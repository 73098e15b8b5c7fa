t = int(input())
for _ in range(t):
    n = int(input())
    a = list(map(int, input().split()))
    print("yes" if a[0] % 2 == a[-1] % 2 else "no")
