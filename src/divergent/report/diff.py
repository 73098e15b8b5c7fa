"""Where two program outputs differ, for highlighting: :mod:`difflib` does the matching.

A report shows each implementation's outcome next to the reference's (the first implementation):
the parts the reference lacks are marked inserted, the parts it has and this one lacks deleted.
Short one-line outputs are compared character by character; multi-line outputs (a program's
stdout) line by line, with the changed lines compared by character inside. A number is one piece:
``2147483648`` against ``-2147483648`` reads as the one number replaced by the other, never as
digits spliced into each other.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

#: "equal" text both have; "insert" text only this output has; "delete" text only the reference has
SpanKind = Literal["equal", "insert", "delete"]

#: past this many characters a diff is not worth computing (the outputs are shown plainly)
MAX_DIFF_CHARS = 20_000


@dataclass(frozen=True)
class Span:
    kind: SpanKind
    text: str


#: a number (an integer, a decimal, an exponent; a sign unless it follows a word): one piece of a diff
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])|.", re.DOTALL)


def _pieces(text: str) -> list[str]:
    """``text`` as the pieces a diff compares: each number whole, every other character alone."""
    return _NUMBER.findall(text)


def char_diff(reference: str, other: str) -> tuple[Span, ...]:
    """``other`` as spans against ``reference``: equal, inserted (only in ``other``), deleted
    (only in ``reference``), in reading order; character by character, but numbers whole."""
    if len(reference) + len(other) > MAX_DIFF_CHARS:
        return (Span("equal", other),) if reference == other else (Span("delete", reference), Span("insert", other))
    ours, theirs = _pieces(reference), _pieces(other)
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    spans: list[Span] = []
    for tag, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        if tag == "equal":
            spans.append(Span("equal", "".join(theirs[b_start:b_end])))
            continue
        if tag in ("delete", "replace"):
            spans.append(Span("delete", "".join(ours[a_start:a_end])))
        if tag in ("insert", "replace"):
            spans.append(Span("insert", "".join(theirs[b_start:b_end])))
    return tuple(_merged(spans))


def output_diff(reference: str, other: str) -> tuple[Span, ...]:
    """Like :func:`char_diff`, but line by line first when either output has several lines, so a
    long stdout that differs in one line shows that line, not a scatter of characters."""
    if "\n" not in reference and "\n" not in other:
        return char_diff(reference, other)
    if len(reference) + len(other) > MAX_DIFF_CHARS:
        return char_diff(reference, other)
    ours, theirs = reference.splitlines(keepends=True), other.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    spans: list[Span] = []
    for tag, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        removed, added = "".join(ours[a_start:a_end]), "".join(theirs[b_start:b_end])
        if tag == "equal":
            spans.append(Span("equal", added))
        elif tag == "replace" and a_end - a_start == b_end - b_start:
            for old_line, new_line in zip(ours[a_start:a_end], theirs[b_start:b_end], strict=True):
                spans.extend(char_diff(old_line, new_line))
        else:
            if removed:
                spans.append(Span("delete", removed))
            if added:
                spans.append(Span("insert", added))
    return tuple(_merged(spans))


def _merged(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for span in spans:
        if not span.text:
            continue
        if merged and merged[-1].kind == span.kind:
            merged[-1] = Span(span.kind, merged[-1].text + span.text)
        else:
            merged.append(span)
    return merged
