def caseless_equal(first: str, second: str) -> bool:
    return first.casefold() == second.casefold()
