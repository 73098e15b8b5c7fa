print(3)
print(1, 10)
print(2, 3)
print(4, 5)
