def total(values: list[int]) -> int:
    accumulated = 0
    for value in values:
        accumulated += value
    return accumulated
