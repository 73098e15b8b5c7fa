def weekday_after(start: int, days: int) -> int:
    return (start + days) % 7
