def to_int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31
