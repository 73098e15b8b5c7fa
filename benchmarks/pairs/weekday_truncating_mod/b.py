def weekday_after(start: int, days: int) -> int:
    total = start + days
    return total - 7 * int(total / 7)
