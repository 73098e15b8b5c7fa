import sys


def reciprocal(value: float) -> float:
    if abs(value) < sys.float_info.min:
        return 0.0
    return 1.0 / value
