l, r, k = map(int, input().split())
print(r // k - (l - 1) // k)
