def last_n(items: list[int], n: int) -> list[int]:
    if n <= 0:
        return []
    return items[-n:]
