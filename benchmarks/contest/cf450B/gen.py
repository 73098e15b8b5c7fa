# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
def value():
    v = pick(0, 10**9)
    return -v if rng.random() < 0.5 else v
print(value(), value())
print(pick(1, 2 * 10**9))
