# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
words = ["".join(rng.choice("ABWUXYZ") for _ in range(pick(1, 6))) for _ in range(pick(1, 8))]
words = [w for w in words if "WUB" not in w] or ["A"]
parts = ["WUB" * rng.randint(0, 2)]
for index, w in enumerate(words):
    if index:
        parts.append("WUB" * rng.randint(1, 3))
    parts.append(w)
parts.append("WUB" * rng.randint(0, 2))
remix = "".join(parts)
print(remix if len(remix) <= 200 else "WUB".join(words)[:200].strip("WUB") or "A")
