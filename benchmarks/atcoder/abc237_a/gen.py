# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
if rng.random() < 0.4:
    print(rng.choice((-2**31, 2**31 - 1, 2**31, -2**31 - 1, -2**63, 2**63 - 1, 0)))
else:
    print(pick(-2**63, 2**63 - 1) if rng.random() < 0.5 else pick(-2**33, 2**33))
