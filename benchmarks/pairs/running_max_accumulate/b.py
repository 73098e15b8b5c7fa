def running_max(values: list[int]) -> list[int]:
    result = []
    for value in values:
        if not result or value > result[-1]:
            result.append(value)
        else:
            result.append(result[-1])
    return result
