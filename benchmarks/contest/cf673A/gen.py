# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n = pick(1, 90)
if rng.random() < 0.5:
    start = rng.randint(1, 90)
    gaps = [rng.randint(1, 16) for _ in range(n)]
    t, minute = [], start
    for gap in gaps:
        if minute > 90:
            break
        t.append(minute)
        minute += gap
else:
    t = sorted(rng.sample(range(1, 91), n))
print(len(t))
print(*t)
