import sys
rows = sys.stdin.read().split("\n")
a, b = map(int, rows[0].split())
assert abs(a) <= 10**9 and 1 <= b <= 10**9, "out of range"
assert all(not r.strip() for r in rows[1:])
