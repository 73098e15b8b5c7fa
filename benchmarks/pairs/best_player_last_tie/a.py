def best_player(scores: dict[str, int]) -> str:
    if not scores:
        raise ValueError("no players")
    return max(scores, key=lambda name: scores[name])
