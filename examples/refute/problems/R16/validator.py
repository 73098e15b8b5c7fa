"""Input validator: the input on stdin; exit 0 when valid, else 1 with the reason on stderr."""

import sys


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


# strict about spaces inside lines, lenient about line endings (CRLF) and blank lines at the end
data = sys.stdin.read().replace("\r\n", "\n").rstrip("\n")
lines = data.split("\n")
position = 0


def line():
    global position
    if position >= len(lines):
        fail(f"line {position + 1}: missing")
    text = lines[position]
    position += 1
    if text != text.strip() or "  " in text:
        fail(f"line {position}: extra spaces")
    return text


def ints(count, low, high, what):
    text = line()
    parts = text.split(" ") if text else []
    if len(parts) != count:
        fail(f"line {position}: expected {count} integer(s) ({what}), got {len(parts)}")
    values = []
    for part in parts:
        if not part.lstrip("-").isdigit() or part.startswith("+") or (part != "0" and part.lstrip("-").startswith("0")) or part == "-0":
            fail(f"line {position}: {part!r} is not an integer ({what})")
        value = int(part)
        if not low <= value <= high:
            fail(f"line {position}: {what} = {value} is out of [{low}, {high}]")
        values.append(value)
    return values


def end():
    if position != len(lines):
        fail(f"line {position + 1}: unexpected extra input")
n, = ints(1, 2, 200000, "n")
parent = list(range(n + 1))


def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


for _ in range(n - 1):
    u, v = ints(2, 1, n, "u and v")
    a, b = find(u), find(v)
    if a == b:
        fail(f"line {position}: the edge {u}-{v} closes a cycle (not a tree)")
    parent[a] = b
end()
