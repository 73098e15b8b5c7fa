def middle(values: list[int]) -> int:
    return values[len(values) // 2]
