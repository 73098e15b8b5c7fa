import math
import sys


def classify_float(value: float) -> str:
    if math.isfinite(value):
        if value == 0:
            return "zero"
        return "normal" if abs(value) >= sys.float_info.min else "subnormal"
    if value != value:
        return "nan"
    return "-inf" if value < 0 else "inf"
