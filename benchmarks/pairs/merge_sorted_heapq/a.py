def merge_sorted(first: list[int], second: list[int]) -> list[int]:
    return sorted(first + second)
