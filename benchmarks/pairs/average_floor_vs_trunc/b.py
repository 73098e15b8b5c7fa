def average_rounded(total: int, count: int) -> int:
    if count <= 0:
        raise ValueError("count must be positive")
    return int(total / count)
