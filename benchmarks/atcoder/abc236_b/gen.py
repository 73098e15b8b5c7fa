# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
n = pick(1, 10**5) if rng.random() < 0.2 else pick(1, 30)
missing = rng.randint(1, n)
cards = [v for v in range(1, n + 1) for _ in range(4)]
cards.remove(missing)
rng.shuffle(cards)
print(n)
print(*cards)
