import sys
rows = sys.stdin.read().split("\n")
n = int(rows[0]); xs = rows[1].split()
assert 1 <= n <= 100000 and len(xs) == n, "bad n"
assert all(0 <= int(x) <= 10**9 for x in xs), "scores out of range"
assert all(not r.strip() for r in rows[2:])
