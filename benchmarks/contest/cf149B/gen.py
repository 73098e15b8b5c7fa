# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
def number():
    length = pick(1, 5)
    alphabet = rng.choice(("0", "01", "0123456789", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0ABC"))
    return "".join(rng.choice(alphabet) for _ in range(length))
print(f"{number()}:{number()}")
