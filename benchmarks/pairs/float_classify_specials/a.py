import math
import sys


def classify_float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "zero"
    return "subnormal" if abs(value) < sys.float_info.min else "normal"
