"""Words to put next to a value: a trailing or leading word, a token inserted between two others.

Code that parses a phrase often handles exactly the words it was tested with; one more word at
either end (``"1 hour ago"``, ``"10 MB free"``) is where such parsers part ways.
"""

from __future__ import annotations

import string
from random import Random

__all__ = ["WORDS", "random_word", "with_word"]

WORDS = ("a", "x", "foo", "bar", "abc", "test", "and", "the", "ago", "of", "en", "id", "null", "None", "true",
         "0", "1", "2nd", "UTC", "AM", "pm", "ms", "kb", "v2", "ä", "ß", "日本", "-", "_", ".", "?", "!", "'s")  # fmt: skip
_SEPARATORS = (" ", " ", " ", "", "\t", "  ", ",", ", ", "-", "_", "/", ".", ":", ";", "\n", "|")


def random_word(rng: Random, harvested: tuple[str, ...] = ()) -> str:
    roll = rng.random()
    if harvested and roll < 0.35:
        return rng.choice(harvested)
    if roll < 0.75:
        return rng.choice(WORDS)
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(1, 6)))


def with_word(value: str, rng: Random, harvested: tuple[str, ...] = ()) -> str:
    """``value`` with a word appended (most often), prepended, or inserted between two of its tokens."""
    word = random_word(rng, harvested)
    separator = rng.choice(_SEPARATORS)
    roll = rng.random()
    if roll < 0.6 or not value:
        return value + separator + word
    if roll < 0.8:
        return word + separator + value
    spaces = [i for i, c in enumerate(value) if c in " ,;/-_.:"]
    at = rng.choice(spaces) if spaces else rng.randint(0, len(value))
    return value[:at] + separator + word + separator + value[at:]
