# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
a = rng.randint(1, 10)
print(a, rng.randint(0, a))
