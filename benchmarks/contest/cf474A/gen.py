# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
rows = ("qwertyuiop", "asdfghjkl;", "zxcvbnm,./")
direction = rng.choice("LR")
keys = [c for row in rows for c in (row[1:] if direction == "R" else row[:-1])]
print(direction)
print("".join(rng.choice(keys) for _ in range(pick(1, 100))))
