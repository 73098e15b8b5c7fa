import math


def gcd(a: int, b: int) -> int:
    return math.gcd(a, b)
