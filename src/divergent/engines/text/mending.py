"""Inputs of an engine of texts mended by what the validator taught (:mod:`divergent.engines.text.lessons`
and :mod:`divergent.engines.text.patterns`): a word put back into the one shape its slot's words
take (``a:b``), two integers into the relation the validator keeps between them (``m <= n``), the
ends of lists to the one value they take (a grid's corners), a list in strict order kept so (no
two equal neighbours).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from divergent.engines.text.lessons import RETRY_ONE_IN, Lessons
from divergent.engines.text.slots import part_specs, slots
from divergent.formats.model import Kind
from divergent.formats.text_structure import Block, Count, Line, Rep, is_integer, reps
from divergent.formats.values import SlotSpec

__all__ = ["integer_values", "list_ends", "mend_patterns", "mend_permutations", "strictly"]


def _integer_slots(tree: Block) -> Iterator[tuple[list | None, int, SlotSpec, int]]:
    """The single integers of the lines of a tree with a format (not a list's items, nor what a
    repeated part holds: one slot there has a value per element): the holder and index of a token
    (None for a count, which its lists' size writes), its spec and value."""
    for node in tree:
        if isinstance(node, Line):
            if node.specs is None:
                continue
            for index, (part, spec) in enumerate(zip(node.parts, node.specs, strict=True)):
                if spec is None or spec.kind is not Kind.INT or spec.choices:
                    continue
                if isinstance(part, str) and is_integer(part):
                    yield node.parts, index, spec, int(part)
                elif isinstance(part, Count):
                    yield None, index, spec, part.value


def integer_values(tree: Block) -> list[tuple[str, int]]:
    """The single integers of a tree's lines (tokens and counts), by their slots' keys."""
    return [(spec.key, value) for _, _, spec, value in _integer_slots(tree)]


def _lists(tree: Block) -> Iterator[tuple[str, Rep]]:
    """The inline lists of tokens of a tree with a format, in order, by their items' slot."""
    item_specs, _ = part_specs(tree)
    for rep in reps(tree):
        spec = item_specs.get(id(rep))
        if spec is not None and rep.inline and not rep.characters and rep.items:
            yield spec.key, rep


def _ends(tree: Block) -> Iterator[tuple[str, Rep, int]]:
    """The ends of a tree's lists: the first and last item of the first and last list of each
    slot, as (the end's key, the list, the item's index)."""
    by_slot: dict[str, list[Rep]] = {}
    for key, rep in _lists(tree):
        by_slot.setdefault(key, []).append(rep)
    for key, lists in by_slot.items():
        for occurrence, rep in (("first", lists[0]), ("last", lists[-1])):
            yield f"{key}@{occurrence}.first", rep, 0
            yield f"{key}@{occurrence}.last", rep, len(rep.items) - 1


def list_ends(tree: Block) -> list[tuple[str, str]]:
    """The items at the ends of a tree's lists, by end (:func:`_ends`)."""
    return [(end, rep.items[index]) for end, rep, index in _ends(tree)]


def _mend_ends(tree: Block, lessons: Lessons, rng: random.Random) -> bool:
    kept = {end: value for end, learnt in lessons.ends.items() if (value := learnt.kept()) is not None}
    changed = False
    if kept:
        for end, rep, index in _ends(tree):
            value = kept.get(end)
            if value is not None and rep.items[index] != value and rng.randrange(RETRY_ONE_IN):
                rep.items[index] = value
                changed = True
    return changed


def mend_permutations(tree: Block, lessons: Lessons, rng: random.Random) -> bool:
    """Make the lists that must be permutations of 1..n (``Lessons.permutations``: the statement
    says so, or every example's is) one again, shuffled, when a change broke them."""
    changed = False
    for key, rep in _lists(tree):
        if key in lessons.permutations and sorted(rep.items, key=_number) != [str(i) for i in range(1, len(rep.items) + 1)]:
            items = [str(i) for i in range(1, len(rep.items) + 1)]
            rng.shuffle(items)
            rep.items = items
            changed = True
    return changed


def _number(text: object) -> int:
    return int(text) if isinstance(text, str) and is_integer(text) else -1


def mend_patterns(tree: Block, lessons: Lessons, rng: random.Random) -> bool:
    """Mend in place the words out of the one shape their slot's words take, and what breaks a
    relation the validator keeps between two integers (``m <= n``: ``m`` drawn again at most
    ``n``, or ``n`` raised when ``m`` is a count); whether anything changed."""
    # (every child comes here: the tree is walked only for the slots whose shape is kept)
    shaped = {slot for slot, shape in lessons.shapes.items() if shape.kept() is not None}
    changed = _mend_words(tree, lessons, rng, shaped) if shaped else False
    changed = (_mend_ends(tree, lessons, rng) if lessons.ends else False) or changed
    changed = (mend_permutations(tree, lessons, rng) if lessons.permutations else False) or changed
    return _mend_relations(tree, lessons, rng) or changed


def _mend_words(tree: Block, lessons: Lessons, rng: random.Random, shaped: set[str]) -> bool:
    changed = False
    for slot in slots(tree):
        spec = slot.spec
        if spec is None or spec.kind is not Kind.WORD or spec.choices or spec.key not in shaped:
            continue
        mended = lessons.shaped(spec.key, slot.token, rng)
        if mended != slot.token:
            slot.holder[slot.index] = mended
            changed = True
    return changed


def _mend_relations(tree: Block, lessons: Lessons, rng: random.Random) -> bool:
    kept = lessons.relations.kept()
    if not kept:
        return False
    first: dict[str, tuple[list | None, int, SlotSpec, int]] = {}
    for found in _integer_slots(tree):
        first.setdefault(found[2].key, found)
    changed = False
    for a, b in kept:
        if a not in first or b not in first or rng.randrange(RETRY_ONE_IN) == 0:
            continue
        holder_a, index_a, spec_a, x = first[a]
        holder_b, index_b, spec_b, y = first[b]
        if x <= y:
            continue
        if holder_a is not None:
            low = _lowest(spec_a, lessons)
            new = y if low > y or rng.random() < 0.3 else rng.randint(low, y)
            holder_a[index_a] = str(new)
            first[a] = (holder_a, index_a, spec_a, new)
        elif holder_b is not None:
            holder_b[index_b] = str(x)
            first[b] = (holder_b, index_b, spec_b, x)
        else:
            continue
        changed = True
    return changed


def _lowest(spec: SlotSpec, lessons: Lessons) -> int:
    """The lowest value a slot is known to take (its lessons', else its spec's, else 0)."""
    learnt = lessons.ranges.get(spec.key)
    if learnt is not None and learnt.low is not None:
        return learnt.low
    return spec.low if spec.low is not None else 0


def strictly(items: list[int], high: int | None) -> list[int]:
    """Sorted ``items`` with equal neighbours pushed apart (up, then down below ``high``)."""
    for i in range(1, len(items)):
        items[i] = max(items[i], items[i - 1] + 1)
    if high is not None and items and items[-1] > high:
        items[-1] = high
        for i in range(len(items) - 2, -1, -1):
            items[i] = min(items[i], items[i + 1] - 1)
    return items
