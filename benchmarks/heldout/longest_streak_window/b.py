def longest_streak(values: list[int]) -> int:
    best = 0
    for start in range(len(values)):
        run = 1
        while run < 16 and start + run < len(values) and values[start + run] == values[start]:
            run += 1
        best = max(best, run)
    return best
