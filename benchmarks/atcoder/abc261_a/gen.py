# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
def seg():
    l = pick(0, 99)
    return l, rng.randint(l + 1, min(100, l + rng.choice((3, 10, 100))))
print(*seg(), *seg())
