# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n = pick(1, 100)
print(n)
for _ in range(n):
    length = pick(1, 100) if rng.random() < 0.3 else rng.randint(8, 13)
    print("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(length)))
