def steps_below(n: int) -> int:
    if not 1 <= n <= 100_000:
        raise ValueError("out of range")
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
