def depth(n: int) -> int:
    return max(n, 0) // 2
