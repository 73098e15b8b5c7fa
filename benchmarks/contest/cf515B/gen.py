# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n, m = pick(1, 100), pick(1, 100)
while True:
    b = rng.randint(0, min(n, 3)) if rng.random() < 0.7 else rng.randint(0, n)
    g = rng.randint(0, min(m, 3)) if rng.random() < 0.7 else rng.randint(0, m)
    if b < n or g < m:
        break
print(n, m)
print(b, *rng.sample(range(n), b))
print(g, *rng.sample(range(m), g))
