"""The well-known grammars by name: what each offers the generators (examples, a generator, a
mutation of a text already in the grammar, a test of whether a text looks like it).

Names: ``url``, ``markup`` (HTML/XML), ``json`` (and JavaScript object literals), ``number``,
``date`` (common formats, when the code names none), ``duration``, ``filesize``, ``version``, ``email``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random

from divergent.grammars import emails, jsonish, markup, numbers, units, urls, versions
from divergent.grammars.dates import COMMON_FORMATS, date_strings

__all__ = ["GRAMMARS", "Grammar", "grammar", "matching"]


@dataclass(frozen=True)
class Grammar:
    name: str
    #: texts covering the grammar's parts, plainest first
    examples: tuple[str, ...]
    #: a random text of the grammar
    generate: Callable[[Random], str]
    #: one part of a text of the grammar changed (None: the text is not in the grammar)
    mutate: Callable[[str, Random], str | None] | None = None
    #: whether a text looks like it is written in the grammar
    looks_like: Callable[[str], bool] | None = None


_DATES = tuple(date_strings(COMMON_FORMATS, neighbours=False))

GRAMMARS: dict[str, Grammar] = {
    "url": Grammar("url", urls.EXAMPLES, urls.generate, urls.mutate, urls.looks_like),
    "markup": Grammar("markup", markup.EXAMPLES, markup.generate, markup.mutate, markup.looks_like),
    "json": Grammar("json", jsonish.EXAMPLES, jsonish.generate, jsonish.mutate, jsonish.looks_like),
    "number": Grammar("number", numbers.EXAMPLES, numbers.generate, numbers.mutate, numbers.looks_like),
    "date": Grammar("date", _DATES, lambda rng: rng.choice(_DATES)),
    "duration": Grammar("duration", units.DURATIONS, units.generate_duration, numbers.mutate),
    "filesize": Grammar("filesize", units.FILESIZES, units.generate_filesize, numbers.mutate),
    "version": Grammar("version", versions.EXAMPLES, versions.generate, numbers.mutate),
    "email": Grammar("email", emails.EXAMPLES, emails.generate, None, emails.looks_like),
}


def grammar(name: str) -> Grammar | None:
    return GRAMMARS.get(name)


def matching(value: str) -> list[Grammar]:
    """The grammars whose test says ``value`` looks written in them."""
    return [g for g in GRAMMARS.values() if g.looks_like is not None and g.looks_like(value)]
