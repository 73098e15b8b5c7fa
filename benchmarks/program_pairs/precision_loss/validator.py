import sys
rows = sys.stdin.read().split("\n")
n = int(rows[0]); xs = rows[1].split()
assert 1 <= n <= 1000 and len(xs) == n and all(0 <= int(x) <= 10**6 for x in xs), "bad input"
assert all(not r.strip() for r in rows[2:])
