n = int(input())
count = 0
while n > 0:
    side = int(n ** 0.5)
    while (side + 1) * (side + 1) <= n:
        side += 1
    while side * side > n:
        side -= 1
    n -= side * side
    count += 1
print(count)
