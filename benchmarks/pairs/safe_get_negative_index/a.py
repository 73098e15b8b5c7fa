def safe_get(items: list[int], index: int) -> int:
    if 0 <= index < len(items):
        return items[index]
    return -1
