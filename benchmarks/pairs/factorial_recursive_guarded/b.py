def factorial(n: int) -> int:
    if n < 0 or n > 200:
        raise ValueError(f"factorial argument out of range: {n}")
    result = 1
    for factor in range(2, n + 1):
        result *= factor
    return result
