import sys
lines = sys.stdin.read().split("\n")
n = int(lines[0])
assert 1 <= n <= 200000, f"n={n} out of [1, 200000]"
xs = lines[1].split()
assert len(xs) == n, "expected n values"
assert all(0 <= int(x) <= 10**9 for x in xs), "values out of [0, 1000000000]"
assert all(not line.strip() for line in lines[2:])
