import sys
rows = sys.stdin.read().split("\n")
n = int(rows[0]); xs = rows[1].split()
assert 1 <= n <= 100000 and len(xs) == n and all(1 <= int(x) <= 10**18 for x in xs), "bad input"
assert all(not r.strip() for r in rows[2:])
