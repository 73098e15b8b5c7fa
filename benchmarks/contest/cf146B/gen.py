# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
a = pick(1, 10**5)
while True:
    b = int("".join(rng.choice("47") for _ in range(rng.randint(1, 5))))
    if b <= 10**5:
        break
print(a, b)
