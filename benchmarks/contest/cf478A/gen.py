# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
if rng.random() < 0.2:
    values = [rng.choice((0, 100))] * 5
else:
    values = [pick(0, 100) for _ in range(5)]
print(*values)
