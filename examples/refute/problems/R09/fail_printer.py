print(1)
print(2, 1000000000)
