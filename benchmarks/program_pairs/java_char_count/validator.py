import sys
rows = sys.stdin.read().split("\n")
n = int(rows[0]); s = rows[1]
assert 1 <= n <= 100000 and len(s) == n and s.isalpha() and s.islower(), "bad string"
assert all(not r.strip() for r in rows[2:])
