import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
segments = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
count, last = 0, 0
for left, right in segments:
    if left > last:
        count += 1
        last = right
print(count)
