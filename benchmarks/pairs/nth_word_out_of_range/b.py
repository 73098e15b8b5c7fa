def nth_word(text: str, n: int) -> str:
    words = text.split()
    if n >= len(words):
        return ""
    return words[n]
