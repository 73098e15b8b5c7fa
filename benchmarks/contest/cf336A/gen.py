# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
def coordinate():
    value = pick(1, 10**9)
    return value if rng.random() < 0.5 else -value
print(coordinate(), coordinate())
