def same_word(first: str, second: str) -> bool:
    return first.casefold() == second.casefold()
