import sys
rows = sys.stdin.read().split("\n")
l, r, k = map(int, rows[0].split())
assert 1 <= l <= r <= 10**18 and 1 <= k <= 10**18, "need 1 <= l <= r <= 1e18, 1 <= k <= 1e18"
assert all(not x.strip() for x in rows[1:])
