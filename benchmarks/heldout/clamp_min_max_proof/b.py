def clamp(x: int, low: int, high: int) -> int:
    if x > high:
        x = high
    if x < low:
        x = low
    return x
