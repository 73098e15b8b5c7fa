# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n = pick(1, 100)
high = rng.choice((2, 5, 100))
print(n)
print(*[rng.randint(1, high) for _ in range(n)])
