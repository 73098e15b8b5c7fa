def evens_squared(values: list[int]) -> list[int]:
    return [value * value for value in values if value % 2 == 0]
