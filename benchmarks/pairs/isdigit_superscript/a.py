def parse_quantity(text: str) -> int:
    if text.isdigit():
        return int(text)
    return 0
