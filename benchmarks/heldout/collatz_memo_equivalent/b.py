def steps_below(n: int) -> int:
    if n < 1 or n > 100_000:
        raise ValueError(f"n={n} is out of range")
    count = 0
    while n > 1:
        if n & 1:
            n = 3 * n + 1
        else:
            n >>= 1
        count += 1
    return count
