# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n, t = pick(1, 50), pick(1, 50)
print(n, t)
print("".join(rng.choice("BG") for _ in range(n)))
