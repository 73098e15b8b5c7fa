def nth_word(text: str, n: int) -> str:
    return text.split()[n]
