"""Edits of a structured string by its parts, not its characters: a grammar's own edit (a URL's
scheme swapped, an attribute's value dropped, a number rewritten), a token swapped with another,
repeated, dropped, escaped or re-cased, a word added at either end, or the string spliced with
another of the same shape at a delimiter both share.

:func:`reshape` picks one edit that applies and says which it made.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from collections.abc import Sequence
from random import Random

from divergent.grammars.catalog import GRAMMARS, Grammar, matching
from divergent.grammars.words import with_word

__all__ = ["EDITS", "reshape"]

#: the edits, by the name the mutation engine counts them under
EDITS = ("grammar", "swap-tokens", "repeat-token", "drop-token", "escape-token", "token-case", "add-word", "splice", "donor-token",
         "double-separator")
_TOKENS = re.compile(r"(\w+)", re.UNICODE)
_DELIMITERS = "/:?#&=@.,;|- _<>\"'()[]{}"


def _tokens(value: str) -> list[str]:
    """``value`` cut into alternating separators and word tokens (odd positions hold the words)."""
    return _TOKENS.split(value)


def _escape(token: str, rng: Random) -> str:
    choice = rng.randrange(5)
    if choice == 0:
        return urllib.parse.quote(token, safe="")
    if choice == 1:
        return html.escape(token) if any(c in token for c in "<>&\"'") else "".join(f"&#{ord(c)};" for c in token[:3]) + token[3:]
    if choice == 2:
        return "\\" + token
    if choice == 3:
        return f'"{token}"'
    return token.encode("unicode_escape").decode("ascii") if not token.isascii() else f"'{token}'"


def reshape(
    value: str, rng: Random, *, grammars: Sequence[Grammar] = (), donors: Sequence[str] = (), words: tuple[str, ...] = (),
) -> tuple[str, str]:
    """(``value`` with one edit by its parts, the edit's name). ``grammars``: those the code points
    to (tried first); ``donors``: strings of the same shape to splice with or take tokens from;
    ``words``: literals of the code, for the words added."""
    pieces = _tokens(value)
    words_at = list(range(1, len(pieces), 2))
    edit = rng.choice(EDITS)
    if edit == "grammar":
        # the grammars the code points to, those the value looks written in, and numbers anywhere in it
        candidates = [g for g in dict.fromkeys((*grammars, *matching(value), GRAMMARS["number"])) if g.mutate is not None]
        rng.shuffle(candidates)
        for candidate in candidates:
            assert candidate.mutate is not None
            changed = candidate.mutate(value, rng)
            if changed is not None and changed != value:
                return changed, f"grammar-{candidate.name}"
        edit = "add-word"
    if edit in ("swap-tokens", "repeat-token", "drop-token", "escape-token", "token-case") and not words_at:
        edit = "add-word"
    if edit == "swap-tokens" and len(words_at) >= 2:
        i, j = rng.sample(words_at, 2)
        pieces[i], pieces[j] = pieces[j], pieces[i]
    elif edit in ("swap-tokens", "repeat-token"):
        edit = "repeat-token"
        at = rng.choice(words_at)
        separator = pieces[at + 1] if at + 1 < len(pieces) and pieces[at + 1] else pieces[at - 1] or " "
        pieces[at] = pieces[at] + separator + pieces[at]
    elif edit == "drop-token":
        at = rng.choice(words_at)
        pieces[at] = ""
        if at + 1 < len(pieces) and rng.random() < 0.5:
            pieces[at + 1] = ""  # the separator after it too
    elif edit == "escape-token":
        at = rng.choice(words_at)
        pieces[at] = _escape(pieces[at], rng)
    elif edit == "token-case":
        at = rng.choice(words_at)
        pieces[at] = pieces[at].upper() if not pieces[at].isupper() else pieces[at].lower()
    elif edit == "double-separator" and len(pieces) > 1:
        separators = [i for i in range(0, len(pieces), 2) if pieces[i]]
        if not separators:
            return with_word(value, rng, words), "add-word"
        at = rng.choice(separators)
        cut = rng.randrange(len(pieces[at]))
        pieces[at] = pieces[at][: cut + 1] + pieces[at][cut:]  # one character of it doubled
    elif edit == "splice" and donors:
        donor = rng.choice(donors)
        shared = [c for c in _DELIMITERS if c in value and c in donor]
        if shared:
            delimiter = rng.choice(shared)
            left = [i for i, c in enumerate(value) if c == delimiter]
            right = [i for i, c in enumerate(donor) if c == delimiter]
            return value[: rng.choice(left)] + donor[rng.choice(right) :], "splice"
        return value + donor, "splice"
    elif edit == "donor-token" and donors and words_at:
        donor_words = [t for t in _tokens(rng.choice(donors))[1::2] if t]
        if donor_words:
            at = rng.choice(words_at)
            pieces[at] = rng.choice(donor_words)
        else:
            return with_word(value, rng, words), "add-word"
    else:
        return with_word(value, rng, words), "add-word"
    return "".join(pieces), edit
