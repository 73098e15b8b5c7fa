def distance(a: int, b: int) -> int:
    return max(a, b) - min(a, b)
