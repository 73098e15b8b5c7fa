def median(values: list[int]) -> float:
    if not values:
        raise ValueError("median of an empty list")
    values.sort()
    middle = len(values) // 2
    if len(values) % 2:
        return float(values[middle])
    return (values[middle - 1] + values[middle]) / 2
