# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
n = pick(1, 100)
p = list(range(1, n + 1))
rng.shuffle(p)
print(n, rng.randint(1, n))
print(*p)
