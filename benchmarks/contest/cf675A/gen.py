# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
def value():
    v = pick(0, 10**9)
    return -v if rng.random() < 0.5 else v
a, c = value(), value()
if rng.random() < 0.4:
    steps = rng.randint(-3, 5)
    b = a + steps * c
    if not -10**9 <= b <= 10**9:
        b = value()
else:
    b = value()
print(a, b, c)
