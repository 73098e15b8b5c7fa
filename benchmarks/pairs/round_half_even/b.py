def round_half(value: float) -> int:
    return round(value)
