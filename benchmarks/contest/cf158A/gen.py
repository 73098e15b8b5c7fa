# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n = pick(1, 50)
k = pick(1, n)
high = rng.choice((1, 3, 100))
print(n, k)
print(*sorted((rng.randint(0, high) for _ in range(n)), reverse=True))
