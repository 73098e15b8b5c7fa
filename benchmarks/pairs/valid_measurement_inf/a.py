import math


def is_valid_measurement(value: float) -> bool:
    return math.isfinite(value) and value >= 0
