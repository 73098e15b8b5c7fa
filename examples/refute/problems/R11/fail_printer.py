print(1)
print(-4, 3)
