def total(values: list[int]) -> int:
    return sum(values)
