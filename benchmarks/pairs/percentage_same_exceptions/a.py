def parse_percentage(text: str) -> int:
    value = int(text)
    if value < 0 or value > 100:
        raise ValueError(f"percentage out of range: {value}")
    return value
