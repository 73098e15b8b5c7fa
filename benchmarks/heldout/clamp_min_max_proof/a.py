def clamp(x: int, low: int, high: int) -> int:
    return max(low, min(x, high))
