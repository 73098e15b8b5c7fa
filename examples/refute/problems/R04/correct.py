n = int(input())
best = [0] + [n] * n
squares = []
side = 1
while side * side <= n:
    squares.append(side * side)
    side += 1
for value in range(1, n + 1):
    fewest = value
    for square in squares:
        if square > value:
            break
        if best[value - square] + 1 < fewest:
            fewest = best[value - square] + 1
    best[value] = fewest
print(best[n])
