print(1, 1)
print(5)
