# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
print(pick(0, 10**5) if rng.random() < 0.5 else 100 * pick(0, 1000))
