# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n = pick(1, 100)
high = rng.choice((10, 1000))
print(n, rng.randint(0, high))
center = rng.randint(0, high)
for _ in range(n):
    while True:
        a = rng.randint(0, center) if rng.random() < 0.8 else rng.randint(0, high)
        b = rng.randint(center, high) if rng.random() < 0.8 else rng.randint(0, high)
        if a != b:
            break
    print(*((a, b) if rng.random() < 0.5 else (b, a)))
