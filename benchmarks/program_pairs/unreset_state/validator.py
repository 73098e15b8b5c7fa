import sys
rows = sys.stdin.read().split("\n")
t = int(rows[0]); assert 1 <= t <= 1000, "t out of range"
at = 1
for _ in range(t):
    n = int(rows[at]); xs = rows[at + 1].split()
    assert 1 <= n <= 1000 and len(xs) == n, "bad test case"
    assert all(1 <= int(x) <= 10**9 for x in xs), "values out of range"
    at += 2
assert all(not r.strip() for r in rows[at:]), "trailing data"
