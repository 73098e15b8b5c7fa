# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
letters = "aoyeuiAOYEUI" if rng.random() < 0.2 else "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
print("".join(rng.choice(letters if rng.random() < 0.7 else "bcdBCDxyzXYZ") for _ in range(pick(1, 100))))
