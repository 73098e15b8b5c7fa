"""Shrinking a text input (a whole program's stdin) while the difference persists.

The input is read into its structure (:mod:`divergent.formats.text_structure`); every candidate
is one step simpler and keeps the counts true: a repeated part (the numbers after a count, the
records, the test cases after ``t``) loses an element, its first or second half, or all but one;
a number moves toward zero (0, 1, half, minus one, fewer digits), or an earlier number toward zero
and a later one by as much the other way (their sum kept); a word loses a character or turns its
characters into ``a``. Candidates run in batches; the simplest one that still splits the
programs the same way (and that the validator accepts: the search's ``still_divergent`` checks both)
becomes the current input, until no candidate does or the time is up. Lines are never dropped
whole: a shorter input that breaks the format would show a difference on an invalid input.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence

from divergent.formats.text_structure import (
    Block,
    clone,
    is_integer,
    parse,
    render,
    reps,
    size,
    token_slots,
)
from divergent.records import TextInput

#: candidates of each kind per step at most (big inputs shrink by halves first)
_PER_KIND = 24
#: the first numbers of an input whose pairs trade value (their sum kept)
_PAIRS = 12


def text_complexity(tree: Block, text: str) -> tuple[int, int, int, tuple[int, ...]]:
    """Elements and tokens, then characters, then the magnitude of the numbers, then the numbers in
    order (the earlier ones smaller: of two inputs alike but for where a sum's parts sit, the one
    whose first number is smallest): smaller is simpler. The last makes the simplest input of a
    difference one input, whichever input the search happened to find first."""
    numbers = [min(abs(int(token)), 10**30) * 2 + token.startswith("-")
               for holder, index in token_slots(tree) if is_integer(token := holder[index])]
    return size(tree), len(text), sum(numbers), tuple(numbers)


def _variants(tree: Block) -> Iterator[Block]:
    """Trees one step simpler than ``tree`` (each a fresh copy)."""
    for number, rep in enumerate(list(reps(tree))[:_PER_KIND]):
        count = len(rep.items)
        if count == 0:
            continue
        edits: list[Callable[[list], None]] = []
        if count > 1:
            edits.append(lambda items: items.__delitem__(slice(len(items) // 2, None)))
            edits.append(lambda items: items.__delitem__(slice(None, len(items) // 2)))
            edits.append(lambda items: items.__delitem__(slice(1, None)))
        edits.extend((lambda items, at=at: items.__delitem__(at)) for at in range(min(count, _PER_KIND)))
        for edit in edits:
            copy = clone(tree)
            edit(list(reps(copy))[number].items)
            yield copy
    for position, (holder, index) in enumerate(list(token_slots(tree))[: _PER_KIND * 4]):
        token = holder[index]
        for smaller in _smaller_tokens(token):
            copy = clone(tree)
            copy_holder, copy_index = list(token_slots(copy))[position]
            copy_holder[copy_index] = smaller
            yield copy
    yield from _redistributed(tree)
    for number, rep in enumerate(list(reps(tree))):
        if rep.characters and any(c != "a" for c in rep.items):
            copy = clone(tree)
            target = list(reps(copy))[number]
            target.items[:] = ["a"] * len(target.items)
            yield copy


def _redistributed(tree: Block) -> Iterator[Block]:
    """Trees whose numbers have the same sum, an earlier one moved toward zero and a later one by as
    much the other way (Hypothesis' shrinker does the same to pairs of integers): a difference that
    needs the sum (an overflow of ``a + b``) reaches one simplest input whichever pair it began from."""
    slots = [(position, int(holder[index])) for position, (holder, index) in enumerate(list(token_slots(tree))[:_PAIRS])
             if is_integer(holder[index])]
    for first, (position, value) in enumerate(slots):
        if value == 0:
            continue
        toward = (1 if value > 0 else -1, value // 2 if value > 0 else -((-value) // 2), 0)
        for later, other in slots[first + 1 :]:
            for target in dict.fromkeys(toward):
                copy = clone(tree)
                copy_slots = list(token_slots(copy))
                holder, index = copy_slots[position]
                holder[index] = str(target)
                holder, index = copy_slots[later]
                holder[index] = str(other + value - target)
                yield copy


def _smaller_tokens(token: str) -> list[str]:
    if is_integer(token):
        value = int(token)
        if value == 0:
            return []
        out = [0, 1 if value > 0 else -1, abs(value), value // 2 if value > 0 else -((-value) // 2),
               value - 1 if value > 0 else value + 1]
        digits = len(str(abs(value)))
        if digits > 2:
            out.append(int(str(value)[: digits // 2 + (value < 0)]))
        # toward zero in binary steps (a value near a threshold far below is reached in one step),
        # toward a threshold in big steps, and to fewer significant digits (readable numbers)
        out.extend(value >> shift if value > 0 else -((-value) >> shift) for shift in range(2, abs(value).bit_length()))
        out.extend(value - (value >> shift) for shift in range(1, 9) if abs(value) >> shift)
        out.extend(value - step if value > 0 else value + step for step in range(2, 9) if abs(value) > step)
        out.extend(int(str(value)[: k + (value < 0)] + "0" * (digits - k)) for k in range(1, digits))
        return [str(v) for v in dict.fromkeys(out) if abs(v) < abs(value) or (v == abs(value) and value < 0)]
    if len(token) > 1 and not token.replace(".", "", 1).lstrip("-").isdigit():
        return [token[:i] + token[i + 1 :] for i in range(min(len(token), 8))] + (
            ["a" * len(token)] if any(c != "a" for c in token) else []
        )
    return []


def candidates(tree: Block) -> list[tuple[Block, str]]:
    """Simpler inputs one step from ``tree``, de-duplicated, simplest first."""
    seen: dict[str, Block] = {}
    for variant in _variants(tree):
        seen.setdefault(render(variant), variant)
    ordered = sorted(seen.items(), key=lambda pair: text_complexity(pair[1], pair[0]))
    return [(variant, text) for text, variant in ordered]


def shrink_text(
    start: TextInput,
    *,
    still_divergent: Callable[[Sequence[TextInput]], list[bool]],
    seconds: float,
    max_rounds: int = 300,
    on_step: Callable[[TextInput], None] | None = None,
) -> TextInput:
    """The simplest input reachable from ``start`` by steps that keep the difference (and pass the
    validator, which ``still_divergent`` applies). ``on_step`` is told each input the search moves
    to (the report shows the steps)."""
    deadline = time.monotonic() + seconds
    tree = parse(start.text)
    text = render(tree)
    current = (tree, start.text)
    complexity = text_complexity(tree, start.text)
    tried: set[str] = {start.text, text}
    # The structure's rendering normalises whitespace: try that first.
    if text != start.text and still_divergent([TextInput(text, how_generated="shrink")])[0]:
        current = (tree, text)
        complexity = text_complexity(tree, text)
        if on_step is not None:
            on_step(TextInput(text, how_generated=start.how_generated))
    for _ in range(max_rounds):
        if time.monotonic() > deadline:
            break
        batch = [(variant, candidate) for variant, candidate in candidates(current[0])
                 if candidate not in tried and text_complexity(variant, candidate) < complexity]
        tried.update(candidate for _, candidate in batch)
        if not batch:
            break
        found = None
        # Simplest first, in growing chunks: the first chunk with a candidate that keeps the
        # difference decides the step (most steps need only the first few runs).
        offset, chunk = 0, 8
        while offset < len(batch) and found is None:
            part = batch[offset : offset + chunk]
            verdicts = still_divergent([TextInput(candidate, how_generated="shrink") for _, candidate in part])
            found = next((pair for pair, ok in zip(part, verdicts, strict=True) if ok), None)
            offset, chunk = offset + chunk, chunk * 4
            if time.monotonic() > deadline:
                break
        if found is None:
            break
        current = found
        complexity = text_complexity(*current)
        if on_step is not None:
            on_step(TextInput(current[1], how_generated=start.how_generated))
    return TextInput(current[1], how_generated=start.how_generated)
