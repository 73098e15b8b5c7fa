import math


def is_perfect_square(n: int) -> bool:
    if n < 0:
        return False
    root = int(math.sqrt(n))
    return root * root == n
