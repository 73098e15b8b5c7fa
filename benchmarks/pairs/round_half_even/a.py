import math


def round_half(value: float) -> int:
    return math.floor(value + 0.5)
