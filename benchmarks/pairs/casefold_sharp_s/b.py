def same_word(first: str, second: str) -> bool:
    return first.lower() == second.lower()
