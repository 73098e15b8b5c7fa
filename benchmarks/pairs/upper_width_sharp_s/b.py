def shout(text: str, width: int) -> str:
    return "".join(ch.upper() for ch in text[:width])
