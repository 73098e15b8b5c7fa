import heapq


def merge_sorted(first: list[int], second: list[int]) -> list[int]:
    return list(heapq.merge(sorted(first), sorted(second)))
