def digit_count(n: int) -> int:
    return len(str(abs(n)))
