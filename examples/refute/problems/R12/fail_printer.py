print(1)
print(10**18 - 1)
