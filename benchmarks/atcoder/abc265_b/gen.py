# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
n = pick(2, 10**5) if rng.random() < 0.2 else pick(2, 12)
m = rng.randint(0, n - 2)
big = rng.random() < 0.4
print(n, m, pick(1, 10**9) if big else pick(1, 30))
print(*[(pick(1, 10**9) if big else pick(1, 20)) for _ in range(n - 1)])
for x in sorted(rng.sample(range(2, n), m)):
    print(x, pick(1, 10**9) if big else pick(1, 30))
