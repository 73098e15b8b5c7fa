n = 100000
print(n)
print(" ".join(["1"] * n))
