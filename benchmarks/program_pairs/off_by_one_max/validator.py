import sys
lines = sys.stdin.read().split("\n")
n = int(lines[0])
assert 1 <= n <= 100000, "n out of range"
xs = list(map(int, lines[1].split()))
assert len(xs) == n and all(abs(x) <= 10**9 for x in xs), "bad values"
assert all(not l.strip() for l in lines[2:])
