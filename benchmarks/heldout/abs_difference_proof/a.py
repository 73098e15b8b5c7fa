def distance(a: int, b: int) -> int:
    return abs(a - b)
