def unique(values: list[int]) -> list[int]:
    return list(set(values))
