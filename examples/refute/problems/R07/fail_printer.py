print("1 5")
print(-3)
