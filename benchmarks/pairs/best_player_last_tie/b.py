def best_player(scores: dict[str, int]) -> str:
    if not scores:
        raise ValueError("no players")
    best_name, best_score = "", None
    for name, score in scores.items():
        if best_score is None or score >= best_score:
            best_name, best_score = name, score
    return best_name
