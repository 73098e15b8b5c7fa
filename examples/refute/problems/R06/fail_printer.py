print(40)
print(" ".join(["7"] * 40))
