"""Strings shaped by a regular expression: ones that match it fully, ones that match a prefix or a
suffix of a longer text, near-misses one edit away, and matches glued in sequence.

The matching strings come from Hypothesis' ``from_regex`` (the well-kept generator for this), drawn
in a seeded, generate-only run so the same seed gives the same strings. Mostly printable ASCII (the
text real code is tested on), a few from all of Unicode (``\\d`` and ``\\w`` match far more than ASCII).
Patterns are compiled here but never matched against anything: a pattern mined from code may
backtrack for minutes on the wrong text.
"""

from __future__ import annotations

import re
import string
import time
from collections.abc import Sequence
from dataclasses import dataclass
from random import Random

from divergent.grammars.drawing import draw

__all__ = ["RegexSamples", "near_misses", "sample_regex"]

#: the characters one edit inserts or replaces with (besides the pattern's own punctuation)
_EDIT_CHARACTERS = string.ascii_letters + string.digits + " .-_/:,;=&?#%+'\"<>()[]{}\\\t\n"


@dataclass(frozen=True)
class RegexSamples:
    """Strings drawn for one pattern (each tuple may be empty when Hypothesis cannot draw any)."""

    #: strings the pattern matches in full
    full: tuple[str | bytes, ...] = ()
    #: longer strings in which the pattern finds a match (text before or after a match)
    partial: tuple[str | bytes, ...] = ()
    #: strings one edit (insert, delete, replace, swap) away from a full match
    near: tuple[str | bytes, ...] = ()
    #: why nothing could be drawn ("" when something was)
    problem: str = ""
    #: whether full matches could be drawn from printable ASCII (else only from all of Unicode)
    ascii_drawable: bool = False


def _strategies(pattern: str | bytes, flags: int, full: bool, ascii_only: bool):
    from hypothesis import strategies as st

    compiled = re.compile(pattern, flags)
    if isinstance(pattern, bytes) or not ascii_only:
        return st.from_regex(compiled, fullmatch=full)
    alphabet = st.characters(codec="ascii", exclude_categories=("Cc",), include_characters="\t\n")
    return st.from_regex(compiled, fullmatch=full, alphabet=alphabet)


def sample_regex(pattern: str | bytes, flags: int = 0, *, count: int = 16, seed: int = 0, deadline: float | None = None) -> RegexSamples:
    """Strings for one pattern: ``count`` full matches (a quarter from all of Unicode), a third as
    many partial matches, and near-misses of the full ones. ``deadline`` (``time.monotonic``) cuts
    the drawing short."""
    try:
        re.compile(pattern, flags)
    except (re.error, TypeError, ValueError, OverflowError, RecursionError) as error:
        return RegexSamples(problem=f"does not compile: {error}")
    full: list = []
    partial: list = []
    problem = ""
    ascii_drawable = False
    plan = ((True, True, count - count // 4), (True, False, count // 4), (False, True, max(2, count // 3)))
    for fullmatch, ascii_only, n in plan:
        if n <= 0 or (deadline is not None and time.monotonic() > deadline):
            continue
        try:
            drawn = draw(_strategies(pattern, flags, fullmatch, ascii_only), n, seed)
        except Exception as error:  # noqa: BLE001 - Hypothesis refuses some constructs (lookbehinds, ...)
            problem = problem or f"{type(error).__name__}: {error}"
            continue
        (full if fullmatch else partial).extend(drawn)
        ascii_drawable = ascii_drawable or (fullmatch and ascii_only and bool(drawn))
    full = list(dict.fromkeys(full))
    partial = [s for s in dict.fromkeys(partial) if s not in full]
    rng = Random(f"{seed}:near:{pattern!r}")
    near = near_misses(full[: max(4, count // 2)], rng, _pattern_characters(pattern))
    return RegexSamples(
        tuple(full), tuple(partial), tuple(near), "" if full or partial else problem or "no draws", ascii_drawable
    )


def _pattern_characters(pattern: str | bytes) -> str:
    """The literal punctuation a pattern spells (``:``, ``/``, ``=``...): edits with them make near-misses."""
    text = pattern if isinstance(pattern, str) else pattern.decode("latin-1")
    return "".join(sorted({c for c in text if c in string.punctuation and c not in "\\^$*+?()[]{}|"} | ({"-"} if "-" in text else set())))


def near_misses(matches: Sequence[str | bytes], rng: Random, extra: str = "") -> list[str | bytes]:
    """One edit of each string (insert, delete, replace, swap two neighbours, double a separator):
    most no longer match. Inserted characters are often the pattern's own punctuation (``extra``)."""
    found: dict = {}
    for text in matches:
        is_bytes = isinstance(text, bytes)
        chars = list(text.decode("latin-1") if is_bytes else text)
        separators = [i for i, c in enumerate(chars) if not c.isalnum()]
        for _ in range(3):
            edited = list(chars)
            operations = ("insert", "delete", "replace", "swap", *(("double",) * 2 if separators else ())) if chars else ("insert",)
            operation = rng.choice(operations)
            at = rng.randrange(len(chars)) if chars else 0
            alphabet = extra if extra and rng.random() < 0.5 else _EDIT_CHARACTERS
            if operation == "double":  # a separator doubled: `a--b`, `a//b`, `1..2`
                at = rng.choice(separators)
                edited.insert(at, chars[at])
            elif operation == "insert":
                edited.insert(rng.randint(0, len(chars)), rng.choice(alphabet))
            elif operation == "delete":
                del edited[at]
            elif operation == "replace":
                edited[at] = rng.choice(alphabet)
            elif len(chars) > 1:
                at = min(at, len(chars) - 2)
                edited[at], edited[at + 1] = edited[at + 1], edited[at]
            result = "".join(edited)
            value = result.encode("latin-1", "replace") if is_bytes else result
            if value != text:
                found[value] = None
    return list(found)
