def is_palindrome(values: list[int]) -> bool:
    return values == values[::-1]
