def parse_percentage(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"not a percentage: {text!r}") from None
    if not 0 <= value <= 100:
        raise ValueError("percentage must be between 0 and 100")
    return value
