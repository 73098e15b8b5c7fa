import sys
rows = sys.stdin.read().split("\n")
x, m = map(int, rows[0].split())
assert abs(x) <= 10**18 and 1 <= m <= 10**9, "x or m out of range"
assert all(not r.strip() for r in rows[1:])
