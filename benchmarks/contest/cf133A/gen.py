# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
alphabet = [chr(c) for c in range(33, 127)]
common = "hq9+HQ+abc!?"
length = pick(1, 100)
print("".join(rng.choice(common if rng.random() < 0.5 else alphabet) for _ in range(length)))
