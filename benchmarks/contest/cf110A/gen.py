# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
digits = pick(1, 18)
alphabet = rng.choice(("47", "0123456789", "4712", "4"))
text = rng.choice("123456789" if alphabet == "0123456789" else alphabet) + "".join(rng.choice(alphabet) for _ in range(digits - 1))
print(text if rng.random() < 0.95 else 10**18)
