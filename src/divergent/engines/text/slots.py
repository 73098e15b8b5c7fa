"""The slots of an input's tree (:mod:`divergent.formats.text_structure`) read by their input
format: every token with its spec, the spec of each list's items and the count sizing it, and the
values a tree sets (what the validator's verdict on it teaches, :mod:`divergent.engines.text.feedback`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from divergent.engines.text.lessons import SetValue, Word, has_ties, ordered
from divergent.formats.model import Kind
from divergent.formats.text_structure import Block, Count, Line, Rep, is_float, is_integer, reps
from divergent.formats.values import SlotSpec

__all__ = ["Slot", "inline_lists", "number_lists", "numeric", "part_specs", "set_values", "slots", "tied_lists",
           "unordered_lists"]


@dataclass
class Slot:
    """A token of a tree: ``holder[index]``, with its spec (None: no format says)."""

    holder: list
    index: int
    spec: SlotSpec | None

    @property
    def token(self) -> str:
        return self.holder[self.index]

    @property
    def key(self) -> str:
        return self.spec.key if self.spec is not None else "?"


def slots(block: Block) -> Iterator[Slot]:
    """Every token of the tree (line tokens and list items; not a word's characters)."""
    for node in block:
        if isinstance(node, Line):
            specs = node.specs
            for index, part in enumerate(node.parts):
                spec = specs[index] if specs is not None else None
                if isinstance(part, str):
                    yield Slot(node.parts, index, spec)
                elif isinstance(part, Rep) and not part.characters:
                    for item in range(len(part.items)):
                        yield Slot(part.items, item, spec)
        else:
            for element in node.items:
                yield from slots(element)


def part_specs(block: Block) -> tuple[dict[int, SlotSpec], dict[int, tuple[Count, SlotSpec | None]]]:
    """By a Rep's id: the spec of its items (lists, words), and the count sizing it with the
    count's spec."""
    items: dict[int, SlotSpec] = {}
    sized: dict[int, tuple[Count, SlotSpec | None]] = {}

    def walk(nodes: Block) -> None:
        for node in nodes:
            if isinstance(node, Line):
                for index, part in enumerate(node.parts):
                    spec = node.specs[index] if node.specs is not None else None
                    if isinstance(part, Rep) and spec is not None:
                        items[id(part)] = spec
                    elif isinstance(part, Count):
                        for target in part.targets:
                            sized[id(target)] = (part, spec)
            else:
                for element in node.items:
                    walk(element)

    walk(block)
    return items, sized


def set_values(tree: Block) -> list[SetValue]:
    """The values of a tree's slots by their keys in the format (none without one): integers,
    counts (their lists' sizes) and the characters of words."""
    found: list[SetValue] = []
    for slot in slots(tree):
        if slot.spec is None:
            continue
        if slot.spec.kind is Kind.INT and is_integer(slot.token):
            found.append((slot.spec.key, int(slot.token)))
        elif slot.spec.kind is Kind.WORD and not slot.spec.choices:
            found.append((slot.spec.key, Word(slot.token)))
    item_specs, sized = part_specs(tree)
    found.extend((item_specs[id(rep)].key, Word("".join(rep.items))) for rep in reps(tree)
                 if rep.characters and id(rep) in item_specs)
    counted = {id(count): (count, spec) for count, spec in sized.values()}
    found.extend((spec.key, count.value) for count, spec in counted.values() if spec is not None)
    return found


def unordered_lists(tree: Block) -> list[str]:
    """The slots of the tree's lists of integers that are in no order."""
    return [spec.key for spec, rep in number_lists(tree) if not ordered([int(item) for item in rep.items])]


def tied_lists(tree: Block) -> list[str]:
    """The slots of the tree's lists of integers in order with two equal neighbours."""
    found = []
    for spec, rep in number_lists(tree):
        items = [int(item) for item in rep.items]
        if ordered(items) and has_ties(items):
            found.append(spec.key)
    return found


def number_lists(tree: Block) -> Iterator[tuple[SlotSpec, Rep]]:
    """The inline lists of integers of a tree that has a format, with their items' spec."""
    item_specs, _ = part_specs(tree)
    for rep in reps(tree):
        spec = item_specs.get(id(rep))
        if spec is not None and rep.inline and not rep.characters and spec.kind is Kind.INT and len(rep.items) > 1 \
                and all(is_integer(item) for item in rep.items):
            yield spec, rep


def numeric(slot: Slot) -> bool:
    """Whether a slot holds a number (by its spec, else by its token)."""
    if slot.spec is not None:
        return slot.spec.numeric and not slot.spec.choices
    return is_integer(slot.token) or is_float(slot.token)


def inline_lists(tree: Block) -> Iterator[list[Slot]]:
    """The items of each inline list, as slots."""
    item_specs, _ = part_specs(tree)
    for rep in reps(tree):
        if rep.inline and not rep.characters:
            spec = item_specs.get(id(rep))
            yield [Slot(rep.items, index, spec) for index in range(len(rep.items))]
