"""A small text utility, before a refactoring."""


def normalize(title: str) -> str:
    """Collapse whitespace and upper-case a title.

    >>> normalize("  hello   world ")
    'HELLO WORLD'
    """
    return " ".join(title.split()).upper()
