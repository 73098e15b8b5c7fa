# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n = pick(1, 10**9)
m = pick(1, n) if rng.random() < 0.6 else rng.choice((1, n, (n + 1) // 2, n // 2 or 1))
print(n, m)
