def fibonacci(n: int) -> int:
    if n < 0 or n > 25:
        raise ValueError(f"fibonacci index out of range: {n}")
    previous, current = 0, 1
    for _ in range(n):
        previous, current = current, previous + current
    return previous
