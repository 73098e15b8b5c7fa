def digits(number: int) -> list[int]:
    return [int(ch) for ch in str(abs(number))]
