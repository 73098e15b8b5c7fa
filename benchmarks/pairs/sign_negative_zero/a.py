import math


def sign_label(value: float) -> str:
    return "-" if math.copysign(1.0, value) < 0 else "+"
