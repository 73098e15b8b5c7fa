def ranking(scores: dict[str, int]) -> list[str]:
    ascending = sorted(scores, key=lambda name: scores[name])
    return ascending[::-1]
