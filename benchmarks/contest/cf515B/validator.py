# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, m = ints(2, 1, 100, "n, m")
def happy(count_high, index_high, what):
    text = line()
    parts = text.split(" ")
    count = integer(parts[0], 0, count_high, f"the number of happy {what}")
    if len(parts) != count + 1:
        fail(f"expected {count} indices of happy {what}, got {len(parts) - 1}")
    indices = [integer(p, 0, index_high, f"the index of a happy {what[:-1]}") for p in parts[1:]]
    if len(set(indices)) != count:
        fail(f"the indices of happy {what} repeat")
    return count
b = happy(n, n - 1, "boys")
g = happy(m, m - 1, "girls")
if b == n and g == m:
    fail("everyone is happy at the start")
end()
