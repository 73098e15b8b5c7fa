# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n = pick(1, 100)
t = [pick(1, 100) for _ in range(n)]
need = sum(t) + 10 * (n - 1)
d = max(1, min(10**4, need + rng.randint(-12, 40))) if rng.random() < 0.6 else pick(1, 10**4)
print(n, d)
print(*t)
