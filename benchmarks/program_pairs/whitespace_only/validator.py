import sys
rows = sys.stdin.read().split("\n")
n = int(rows[0]); assert 1 <= n <= 1000, "n out of range"
assert all(not r.strip() for r in rows[1:])
