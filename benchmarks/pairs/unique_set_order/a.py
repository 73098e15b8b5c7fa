def unique(values: list[int]) -> list[int]:
    return list(dict.fromkeys(values))
