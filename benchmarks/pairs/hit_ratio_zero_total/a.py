def hit_ratio(hits: int, total: int) -> float:
    if total == 0:
        return 0.0
    return hits / total
