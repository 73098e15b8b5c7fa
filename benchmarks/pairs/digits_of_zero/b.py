def digits(number: int) -> list[int]:
    number = abs(number)
    result: list[int] = []
    while number:
        number, digit = divmod(number, 10)
        result.append(digit)
    result.reverse()
    return result
