def is_palindrome(values: list[int]) -> bool:
    original = list(values)
    values.reverse()
    return values == original
