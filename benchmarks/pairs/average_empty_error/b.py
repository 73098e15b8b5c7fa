def average(values: list[int]) -> float:
    return sum(values) / len(values)
