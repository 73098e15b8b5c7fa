import math


def is_valid_measurement(value: float) -> bool:
    return not math.isnan(value) and value >= 0
