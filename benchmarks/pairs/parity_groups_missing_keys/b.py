def group_by_parity(values: list[int]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for value in values:
        groups.setdefault("even" if value % 2 == 0 else "odd", []).append(value)
    return groups
