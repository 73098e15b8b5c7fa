# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
digits = pick(1, 18)
alphabet = rng.choice(("0123456789", "9", "09", "45", "5678"))
first = rng.choice([c for c in alphabet if c != "0"] or ["9"])
text = first + "".join(rng.choice(alphabet) for _ in range(digits - 1))
print(text if rng.random() < 0.95 else 10**18)
