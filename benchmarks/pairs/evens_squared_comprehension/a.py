def evens_squared(values: list[int]) -> list[int]:
    result = []
    for value in values:
        if value % 2 == 0:
            result.append(value * value)
    return result
