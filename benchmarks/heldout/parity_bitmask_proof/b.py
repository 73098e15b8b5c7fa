def is_odd(n: int) -> bool:
    return n & 1 == 1
