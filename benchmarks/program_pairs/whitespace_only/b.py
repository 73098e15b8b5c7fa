n = int(input())
print(" ".join(str(2 * i) for i in range(1, n + 1)) + "   ")
print()
