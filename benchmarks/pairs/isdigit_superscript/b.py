def parse_quantity(text: str) -> int:
    if text.isdecimal():
        return int(text)
    return 0
