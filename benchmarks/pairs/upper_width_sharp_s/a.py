def shout(text: str, width: int) -> str:
    return text.upper()[:width]
