def group_by_parity(values: list[int]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {"even": [], "odd": []}
    for value in values:
        groups["even" if value % 2 == 0 else "odd"].append(value)
    return groups
