"""The same utility after a 'harmless' refactoring."""

import re


def normalize(title: str) -> str:
    """Collapse whitespace and upper-case a title.

    >>> normalize("  hello   world ")
    'HELLO WORLD'
    """
    words = re.split(r" +", title.strip(" "))
    return " ".join(word.upper() for word in words if word)
