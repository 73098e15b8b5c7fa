print(1)
print("bcba")
