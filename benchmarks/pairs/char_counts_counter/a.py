from collections import Counter


def char_counts(text: str) -> dict[str, int]:
    return dict(Counter(text))
