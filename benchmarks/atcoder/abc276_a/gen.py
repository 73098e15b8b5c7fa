# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
n = pick(1, 100)
letters = rng.choice(("ab", "abc", "bcd", "abcdefghijklmnopqrstuvwxyz"))
print("".join(rng.choice(letters) for _ in range(n)))
