print(1, 1)
print(5)
print(1, 1)
