# This problem's drawing, run after the shared ../../contest/random_input.py (rng, pick);
# benchmarks/validators.py joins them into one program.
while True:
    cards = [rng.randint(1, rng.choice((2, 3, 13))) for _ in range(5)]
    if len(set(cards)) > 1:
        break
print(*cards)
