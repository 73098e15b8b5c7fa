print(4, 3)
print(2, 3)
print(3, 4)
print(4, 2)
