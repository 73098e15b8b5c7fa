"""Shrinking a counterexample to a small, readable input.

Greedy and batched: from the current input, make simpler candidates (each argument replaced by a
simpler value: smaller numbers, shorter strings and lists, plainer characters), run a whole batch
of them in the sandbox at once, and move to the simplest candidate that still splits the
implementations into the same classes. Stop when no candidate does, or the time is up.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from divergent.records import Input
from divergent.values import canonical_key

#: a number shrinks toward a threshold below it by removing 1/4, 1/8, ... up to 1/2**this of it
_THRESHOLD_STEPS = 8


def complexity(value: Any) -> tuple[int, int]:
    """How complicated a value looks to a reader: (size, magnitude). Smaller is simpler; every
    shrinking step must make it strictly smaller, so shrinking always ends."""
    if value is None or isinstance(value, bool):
        return (0, int(bool(value)))
    if isinstance(value, int):
        return (0, abs(value) * 2 + (value < 0))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return (1, 0)
        simple = value == int(value)
        return (0, (0 if simple else 8) + int(abs(value)) * 2 + (value < 0))
    if isinstance(value, str | bytes | bytearray):
        plain = sum(1 for c in (value if isinstance(value, str) else value.decode("latin-1"))
                    if not ("a" <= c <= "z" or "0" <= c <= "9"))
        return (len(value), plain)
    if isinstance(value, dict):
        parts = [complexity(k) for k in value] + [complexity(v) for v in value.values()]
    elif isinstance(value, list | tuple | set | frozenset):
        parts = [complexity(item) for item in value]
    else:
        return (0, 0)
    return (len(value) + sum(p[0] for p in parts), sum(p[1] for p in parts))


def input_complexity(item: Input) -> tuple[int, int]:
    parts = [complexity(a) for a in item.args] + [complexity(v) for v in item.kwargs.values()]
    return (sum(p[0] for p in parts), sum(p[1] for p in parts))


def simpler_values(value: Any) -> Iterator[Any]:
    """Candidate replacements for ``value``, simplest first (of the same type)."""
    if isinstance(value, bool):
        if value:
            yield False
        return
    if isinstance(value, int):
        if value == 0:
            return
        yield 0
        if value < 0:
            yield -value
        sign = 1 if value > 0 else -1
        for candidate in (sign * (abs(value) // 2), value - sign, sign):
            if abs(candidate) < abs(value):
                yield candidate
        # binary steps: toward zero (a value just past a threshold far below is reached in one
        # step), and toward a threshold just below (each step at least halves what is above it)
        for shift in range(2, abs(value).bit_length()):
            yield sign * (abs(value) >> shift)
        for shift in range(2, min(abs(value).bit_length(), _THRESHOLD_STEPS + 1)):
            yield value - sign * (abs(value) >> shift)
        digits = len(str(abs(value)))
        if digits > 2:
            yield int(str(value)[: digits // 2 + (value < 0)])
        return
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or value == 0.0:
            if value == 0.0 and math.copysign(1.0, value) < 0:
                yield 0.0
            return
        yield 0.0
        if value < 0:
            yield -value
        if value != int(value) and abs(value) < 1e15:
            yield float(int(value))
            yield float(round(value, 1))
        if abs(value) > 1:
            yield value / 2
            yield 1.0 if value > 0 else -1.0
        return
    if isinstance(value, str | bytes):
        empty = value[:0]
        if not value:
            return
        yield empty
        if len(value) > 1:
            yield value[: len(value) // 2]
            yield value[len(value) // 2 :]
        for i in range(min(len(value), 24)):
            yield value[:i] + value[i + 1 :]
        plain = "a" if isinstance(value, str) else b"a"
        for i in range(min(len(value), 24)):
            if value[i : i + 1] != plain:
                yield value[:i] + plain + value[i + 1 :]
        return
    if isinstance(value, list | tuple):
        kind = type(value)
        if not value:
            return
        yield kind()
        if len(value) > 1:
            yield kind(value[: len(value) // 2])
            yield kind(value[len(value) // 2 :])
        for i in range(min(len(value), 24)):
            yield kind(value[:i]) + kind(value[i + 1 :])
        for i in range(min(len(value), 12)):
            for smaller in _limited(simpler_values(value[i]), 6):
                yield kind(value[:i]) + kind([smaller]) + kind(value[i + 1 :])
        return
    if isinstance(value, set | frozenset):
        kind = type(value)
        if not value:
            return
        yield kind()
        for item in sorted(value, key=canonical_key)[:24]:
            yield kind(value - {item})
        return
    if isinstance(value, dict):
        if not value:
            return
        yield {}
        keys = list(value)[:24]
        for key in keys:
            yield {k: v for k, v in value.items() if k != key}
        for key in keys[:12]:
            for smaller in _limited(simpler_values(value[key]), 6):
                yield {**value, key: smaller}


def _limited(items: Iterator[Any], n: int) -> Iterator[Any]:
    for count, item in enumerate(items):
        if count >= n:
            return
        yield item


def candidates(item: Input) -> list[Input]:
    """Inputs one step simpler than ``item`` (one argument changed), de-duplicated."""
    out: dict[str, Input] = {}
    for position, arg in enumerate(item.args):
        for smaller in simpler_values(arg):
            args = (*item.args[:position], smaller, *item.args[position + 1 :])
            candidate = Input(args=args, kwargs=item.kwargs, how_generated="shrink")
            out.setdefault(candidate.key, candidate)
    # Arguments often relate to each other (a word and its folded form): shrink them in step.
    for first, second in _same_kind_pairs(item.args):
        a, b = item.args[first], item.args[second]
        if not (a and b):
            continue
        steps = [(a[:i] + a[i + 1 :], b[:i] + b[i + 1 :]) for i in range(min(len(a), len(b), 24))]
        steps += [(a[:-1], b[:-1]), (a[1:], b[1:])]
        for smaller_a, smaller_b in steps:
            args = list(item.args)
            args[first], args[second] = smaller_a, smaller_b
            candidate = Input(args=tuple(args), kwargs=item.kwargs, how_generated="shrink")
            out.setdefault(candidate.key, candidate)
    for name, arg in item.kwargs.items():
        for smaller in simpler_values(arg):
            candidate = Input(args=item.args, kwargs={**item.kwargs, name: smaller}, how_generated="shrink")
            out.setdefault(candidate.key, candidate)
    return list(out.values())


def _same_kind_pairs(args: Sequence[Any]) -> list[tuple[int, int]]:
    sliceable = [i for i, a in enumerate(args) if type(a) in (str, bytes, list, tuple)]
    return [(i, j) for n, i in enumerate(sliceable) for j in sliceable[n + 1 :] if type(args[i]) is type(args[j])]


def shrink(
    start: Input,
    *,
    still_divergent: Callable[[Sequence[Input]], list[bool]],
    acceptable: Callable[[Input], bool],
    seconds: float,
    max_rounds: int = 200,
    on_step: Callable[[Input], None] | None = None,
) -> Input:
    """The simplest input reachable from ``start`` by greedy steps that keep the divergence.

    ``still_divergent`` runs a batch of candidates and says, for each, whether it splits the
    implementations as ``start`` did; ``acceptable`` is the precondition (annotations, --require);
    ``on_step`` is told each input the search moves to (the report shows the steps).
    """
    deadline = time.monotonic() + seconds
    current = start
    tried: set[str] = {start.key}
    for _ in range(max_rounds):
        if time.monotonic() > deadline:
            break
        batch = [c for c in candidates(current) if c.key not in tried and acceptable(c)]
        tried.update(c.key for c in batch)
        batch = [c for c in batch if input_complexity(c) < input_complexity(current)]
        if not batch:
            break
        batch.sort(key=input_complexity)
        verdicts = still_divergent(batch)
        keep = [c for c, ok in zip(batch, verdicts, strict=True) if ok]
        if not keep:
            break
        current = min(keep, key=input_complexity)
        if on_step is not None:
            on_step(current)
    return Input(args=current.args, kwargs=current.kwargs, how_generated=start.how_generated)
