def depth(n: int) -> int:
    if n == 0 or n == 1:
        return 0
    return 1 + depth(n - 2)
