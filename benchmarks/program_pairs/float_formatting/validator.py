import sys
rows = sys.stdin.read().split("\n")
a, b = map(int, rows[0].split())
assert 0 <= a <= 10**6 and 1 <= b <= 10**6, "out of range"
assert all(not r.strip() for r in rows[1:])
