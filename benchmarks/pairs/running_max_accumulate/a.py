import itertools


def running_max(values: list[int]) -> list[int]:
    return list(itertools.accumulate(values, max))
