# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
print(pick(1, 54))
