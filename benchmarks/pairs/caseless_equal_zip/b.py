def caseless_equal(first: str, second: str) -> bool:
    folded_first, folded_second = first.casefold(), second.casefold()
    if len(folded_first) != len(folded_second):
        return False
    return all(x == y for x, y in zip(folded_first, folded_second, strict=True))
