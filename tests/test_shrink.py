"""Shrinking: greedy steps toward small, readable inputs that keep the divergence."""

from __future__ import annotations

from collections.abc import Sequence

from divergent.kinds.call_shrink import candidates, complexity, shrink
from divergent.records import Input


def shrink_with(predicate, start: Input) -> Input:
    def still_divergent(batch: Sequence[Input]) -> list[bool]:
        return [predicate(*item.args) for item in batch]

    return shrink(start, still_divergent=still_divergent, acceptable=lambda item: True, seconds=5)


def test_numbers_shrink_to_the_boundary() -> None:
    assert shrink_with(lambda n: n >= 100, Input(args=(987_654,))).args == (100,)
    assert shrink_with(lambda n: n < -3, Input(args=(-1_000_003,))).args == (-4,)


def test_strings_and_lists_shrink_to_what_matters() -> None:
    assert shrink_with(lambda s: "ß" in s, Input(args=("hello ß world",))).args == ("ß",)
    assert shrink_with(lambda xs: len(xs) >= 2, Input(args=([5, 9, 13, 2],))).args == ([0, 0],)


def test_related_arguments_shrink_in_step() -> None:
    def differs(a: str, b: str) -> bool:
        return a.casefold() == b.casefold() and a.lower() != b.lower()

    assert shrink_with(differs, Input(args=("FIE$_", "ﬁe$_"))).args == ("FI", "ﬁ")


def test_candidates_are_simpler_and_unique() -> None:
    start = Input(args=([3, 1, 2], "abc"))
    found = candidates(start)
    assert len({c.key for c in found}) == len(found)
    assert Input(args=([], "abc")).key in {c.key for c in found}
    assert complexity("a") < complexity("ß") and complexity(0) < complexity(-1) < complexity(1000)
