INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def to_int32(value: int) -> int:
    return max(INT32_MIN, min(INT32_MAX, value))
