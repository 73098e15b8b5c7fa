print("2 5")
print("2 3")
