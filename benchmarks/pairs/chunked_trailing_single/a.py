def chunked(items: list[int], size: int) -> list[list[int]]:
    if size < 1:
        raise ValueError("size must be positive")
    return [items[start : start + size] for start in range(0, len(items), size)]
