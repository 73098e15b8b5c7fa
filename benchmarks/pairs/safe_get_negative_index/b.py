def safe_get(items: list[int], index: int) -> int:
    if -len(items) <= index < len(items):
        return items[index]
    return -1
