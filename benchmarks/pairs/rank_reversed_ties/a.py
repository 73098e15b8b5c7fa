def ranking(scores: dict[str, int]) -> list[str]:
    return sorted(scores, key=lambda name: scores[name], reverse=True)
