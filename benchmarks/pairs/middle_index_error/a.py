def middle(values: list[int]) -> int:
    if not values:
        raise IndexError("middle of an empty list")
    return values[len(values) // 2]
