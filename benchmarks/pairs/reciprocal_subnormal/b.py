def reciprocal(value: float) -> float:
    if value == 0.0:
        return 0.0
    return 1.0 / value
