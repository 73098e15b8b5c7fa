import sys
rows = sys.stdin.read().split("\n")
n = int(rows[0])
assert 0 <= n <= 1000, "n out of [0, 1000]"
xs = rows[1].split() if len(rows) > 1 else []
assert len(xs) == n and all(0 <= int(x) <= 10**6 for x in xs), "bad values"
assert all(not r.strip() for r in rows[2:])
