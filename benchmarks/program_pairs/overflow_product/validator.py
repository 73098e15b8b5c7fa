import sys
text = sys.stdin.read()
rows = text.split("\n")
a, b = map(int, rows[0].split())
assert 1 <= a <= 10**5 and 1 <= b <= 10**5, "a, b out of [1, 100000]"
assert all(not r.strip() for r in rows[1:])
