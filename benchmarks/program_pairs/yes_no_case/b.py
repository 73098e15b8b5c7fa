print("Yes" if int(input()) % 2 == 0 else "no")
