import sys
rows = sys.stdin.read().split("\n")
t = int(rows[0]); assert 1 <= t <= 100, "t out of range"
at = 1
for _ in range(t):
    n = int(rows[at]); xs = rows[at + 1].split()
    assert 1 <= n <= 1000 and len(xs) == n and all(0 <= int(x) <= 1000 for x in xs), "bad case"
    at += 2
assert all(not r.strip() for r in rows[at:]), "trailing data"
