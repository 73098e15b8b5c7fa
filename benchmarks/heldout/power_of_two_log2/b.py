import math


def is_power_of_two(n: int) -> bool:
    return n > 0 and math.log2(n).is_integer()
