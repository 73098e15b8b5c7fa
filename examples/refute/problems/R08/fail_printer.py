print(1)
print(7)
