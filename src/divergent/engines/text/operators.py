"""The operators of text mutation, on the trees of :mod:`divergent.formats.text_structure`.

Each operator changes a tree in place and returns the key of what it did (for the validator's
feedback, :mod:`divergent.engines.text.feedback`), or None when it found nothing to change. When
the tree came from an input format, every slot has a spec (``Line.specs``): numbers stay within
the stated bounds and move past the ones only seen in examples now and then, words keep their
alphabet and a fixed length, choices stay choices, counts stay within their bounds, and the lists a
count sizes together (``a_1..a_n`` and ``b_1..b_n``, a grid's rows) are resized together. A
number or a count the validator is known to reject there (past a bound only the examples showed:
:class:`divergent.engines.text.lessons.LearntRange`) is steered back toward what it accepts; a word
that lost the one shape its slot's words take, two integers out of the relation they keep, are
mended (:mod:`divergent.engines.text.patterns`). Now and then a character or a word of the
programs' literals is written into a word (:data:`LITERAL_SHARE`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from divergent.engines.text.feedback import Rejections
from divergent.engines.text.lessons import RETRY_ONE_IN, Lessons, SetValue, Word, has_ties
from divergent.engines.text.mending import mend_patterns, strictly
from divergent.engines.text.slots import Slot, inline_lists, number_lists, numeric, part_specs, slots
from divergent.formats.model import Kind
from divergent.formats.text_structure import (
    Block,
    Line,
    Rep,
    clone_element,
    is_float,
    is_integer,
    render,
    reps,
)
from divergent.formats.values import THRESHOLDS, SlotSpec, draw_token, draw_value

__all__ = ["LITERAL_SHARE", "SPECIAL", "TreeMutator", "put_in_order", "steered"]

SPECIAL = (
    0, 1, -1, 2, 3, 7, 10, 100, 127, 128, 255, 256, 1000, 1023, 1024, 65535, 65536, 100_000, 200_000, 1_000_000,
    2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32 - 1, 2**32, 10**9, 10**9 + 7, 998_244_353, 10**18, 2**62,
    2**63 - 1, -(2**63), 10**18 + 1, -(10**9), -(10**18),
)
#: the share of character and word changes that take a character or word of the programs' literals
LITERAL_SHARE = 0.1
#: up to this many new items are inserted one by one; more are merged in at once
_INSERT_ONE_BY_ONE = 16


def put_in_order(tree: Block, lessons: Lessons, rng: random.Random) -> None:
    """Lists of a slot the validator takes in one order only put in that order (but for one try
    in :data:`~divergent.engines.text.lessons.RETRY_ONE_IN`)."""
    for spec, rep in number_lists(tree):
        order = lessons.order(spec.key)
        if order is None or not rng.randrange(RETRY_ONE_IN):
            continue
        rep.items.sort(key=int, reverse=order == "descending")
        if lessons.orders[spec.key].strict() and has_ties([int(item) for item in rep.items]):
            learnt = lessons.ranges.get(spec.key)
            high = learnt.high if learnt is not None and learnt.too_high() is not None else \
                spec.high if spec.hard_high else None
            values = sorted(int(item) for item in rep.items)
            if order == "descending":  # (as the ascending list of the negated values)
                low = learnt.low if learnt is not None and learnt.too_low() is not None else \
                    spec.low if spec.hard_low else None
                values = [-v for v in strictly(sorted(-v for v in values), None if low is None else -low)]
            else:
                values = strictly(values, high)
            rep.items[:] = [str(v) for v in values]


def steered(tree: Block, lessons: Lessons, rng: random.Random) -> Block:
    """``tree`` (changed in place) with the values the validator is known to reject in a slot
    replaced by ones it takes there: numbers past a bound it was seen to hold, characters it
    rejected in a word, lists out of the one order it takes (counts stay: their lists would have
    to change too)."""
    put_in_order(tree, lessons, rng)
    for slot in slots(tree):
        spec = slot.spec
        if spec is None or spec.choices:
            continue
        if spec.kind is Kind.INT and is_integer(slot.token):
            value = int(slot.token)
            steered_value = spec.clamp(lessons.steer(spec.key, value, rng))
            if steered_value != value:
                slot.holder[slot.index] = str(steered_value)
        elif spec.kind is Kind.WORD:
            word = slot.token
            length = lessons.length(spec.key, len(word), rng)
            if length < len(word):
                word = word[:length]
            elif length > len(word) and word:
                word += "".join(rng.choice(word) for _ in range(length - len(word)))
            if lessons.narrowed(spec.key):
                word = "".join(_characters(word, spec, lessons, rng))
            slot.holder[slot.index] = word
    item_specs, _ = part_specs(tree)
    for rep in reps(tree):
        spec = item_specs.get(id(rep))
        if rep.characters and spec is not None and lessons.narrowed(spec.key):
            rep.items[:] = _characters(rep.items, spec, lessons, rng)
    mend_patterns(tree, lessons, rng)
    return tree


def _characters(word: Sequence[str], spec: SlotSpec, lessons: Lessons, rng: random.Random) -> list[str]:
    """The characters of a word, those the validator has not taken in its slot replaced by ones it
    has (mutation tries the others)."""
    accepted = sorted(lessons.alphabets[spec.key].accepted)
    return [c if c in accepted else rng.choice(accepted) for c in word]


class TreeMutator:
    """The operators, with the numbers worth trying and the feedback of the validator."""

    def __init__(self, rng: random.Random, *, numbers: Callable[[], list[int]], named: Callable[[], list[int]],
                 alphabet: list[str], feedback: Rejections, size_cap: Callable[[], int],
                 literals: Sequence[str] = ()) -> None:
        self.rng = rng
        self.numbers = numbers
        self.named = named
        self.alphabet = alphabet
        #: the words of the programs' string and character literals (:func:`source_words`)
        self.literals = [word for word in literals if len(word) > 1]
        self.literal_characters = sorted({char for word in literals for char in word})
        self.feedback = feedback
        self.size_cap = size_cap
        #: characters the tree being mutated may still grow by (set per child: it must render
        #: within the engine's largest input; a larger one would be made, then thrown away)
        self.room: float = math.inf
        #: the slots' values the operators set since the engine last cleared it (for the feedback)
        self.values: list[SetValue] = []

    def mutate(self, tree: Block) -> str | None:
        rng = self.rng
        roll = rng.random()
        operators = [self.number, self.resize, self.arrange, self.word]
        if roll < 0.08:
            operators.insert(0, self.extreme)
        elif roll < 0.45:
            pass
        elif roll < 0.75:
            operators = [self.resize, self.number, self.arrange, self.word]
        elif roll < 0.88:
            operators = [self.arrange, self.number, self.resize, self.word]
        else:
            operators = [self.word, self.number, self.resize, self.arrange]
        for operator in operators:
            key = operator(tree)
            if key is not None:
                return key
        return None

    def _allowed(self, key: str) -> bool:
        return self.feedback.allowed(key, self.rng)

    # -- numbers -------------------------------------------------------------------------------

    def number(self, tree: Block) -> str | None:
        candidates = [slot for slot in slots(tree) if numeric(slot)]
        if not candidates:
            return None
        for _ in range(4):
            slot = self.rng.choice(candidates)
            token, where = self.new_number(slot.token, slot.spec)
            key = f"number:{slot.key}:{where}"
            if self._allowed(key):
                slot.holder[slot.index] = token
                self._set(slot.spec, token)
                return key
        return None

    def new_number(self, token: str, spec: SlotSpec | None) -> tuple[str, str]:
        """A new value for a numeric token, and where it lies: ``inside`` the bounds (soft ones
        too) or ``outside`` the ones only seen."""
        rng = self.rng
        if spec is not None and (spec.choices or spec.kind is Kind.WORD):
            return draw_token(spec, rng, alphabet="".join(self.alphabet)), "inside"
        if (is_float(token) and not is_integer(token)) or (spec is not None and spec.kind is Kind.FLOAT):
            decimals = len(token.split(".", 1)[1]) if "." in token and "e" not in token.lower() else 6
            if spec is not None and spec.decimals is not None:
                decimals = spec.decimals
            value = float(token)
            choice = rng.choice((0.0, -value, value * 10, value / 10, value + 10**-decimals, 1e9, -1e9, 0.5))
            if spec is not None:
                choice = float(spec.clamp(int(choice))) if not spec.allows(int(choice)) else choice
            return f"{choice:.{decimals}f}", "inside" if spec is None or spec.inside(int(choice)) else "outside"
        value = int(token)
        roll = rng.random()
        if spec is not None and roll < 0.3:
            new = draw_value(spec, rng)
        elif roll < 0.55:
            new = rng.choice((0, 1, -1, value + 1, value - 1, -value, value * 2, value // 2, value + rng.randint(-10, 10)))
        elif roll < 0.88:
            new = rng.choice(self.numbers())
        elif roll < 0.95:
            new = rng.choice((2, 10)) ** rng.randint(1, 62 if rng.random() < 0.5 else 18)
        else:
            new = rng.randint(-abs(value) - 10, abs(value) + 10)
        if spec is None:
            return str(new), "any"
        new = self.feedback.lessons.steer(spec.key, new, rng)
        if not spec.allows(new):
            new = spec.clamp(new)
        return str(new), "inside" if spec.inside(new) else "outside"

    def _set(self, spec: SlotSpec | None, token: str) -> None:
        """Note the value an operator set in a slot of the format (integers: bounds are learnt)."""
        if spec is not None and spec.kind is Kind.INT and is_integer(token):
            self.values.append((spec.key, int(token)))

    def extreme(self, tree: Block) -> str | None:
        """Every number of one line (or list) set to one extreme value at once: the classic "all
        values at their maximum" case, where sums and products overflow."""
        groups: list[list[Slot]] = []
        for line in (node for node in tree if isinstance(node, Line)):
            group = [slot for slot in slots([line]) if slot.holder is line.parts and numeric(slot)]
            if len(group) > 1:
                groups.append(group)
        for slot_group in inline_lists(tree):
            if len(slot_group) > 1 and all(numeric(slot) for slot in slot_group):
                groups.append(slot_group)
        if not groups:
            return None
        group = self.rng.choice(groups)
        spec = group[0].spec
        named = self.named()
        if spec is not None and spec.numeric and spec.high is not None and self.rng.random() < 0.6:
            value = spec.high if self.rng.random() < 0.7 or spec.low is None else spec.low
            where = "inside"
        elif named and self.rng.random() < 0.8:
            value = named[-1] if self.rng.random() < 0.5 else self.rng.choice(named)
            where = "named"
        else:
            value = self.rng.choice(SPECIAL)
            where = "special"
        if spec is not None and spec.kind is Kind.INT:
            value = self.feedback.lessons.steer(spec.key, value, self.rng)
        key = f"extreme:{group[0].key}:{where}"
        if not self._allowed(key):
            return None
        for slot in group:
            slot.holder[slot.index] = str(slot.spec.clamp(value) if slot.spec is not None else value)
        self._set(spec, group[0].token)
        return key

    # -- sizes -----------------------------------------------------------------------------------

    def resize(self, tree: Block) -> str | None:
        candidates = [rep for rep in reps(tree) if (not rep.characters or rep.items) and not rep.fixed]
        if not candidates:
            return None
        item_specs, sized = part_specs(tree)
        rep = self.rng.choice(candidates)
        count, count_spec = sized.get(id(rep), (None, None))
        group = [target for target in count.targets if len(target.items) == len(rep.items) and not target.fixed] \
            if count else [rep]
        if rep not in group:
            group = [rep]
        current = len(rep.items)
        cap = self.size_cap()
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            target = current - 1
        elif roll < 0.5:
            target = current + 1
        else:
            near = [t for t in THRESHOLDS if t <= cap]
            target = rng.choice((0, 1, 2, current - 1, current + 1, current * 2, current // 2, cap,
                                 rng.randint(0, cap), rng.choice(near) if near else cap))
        target = max(0, min(target, max(cap, current)))
        offset = count.offset if count is not None else 0
        if count_spec is not None:  # the count's own bounds: count = size + offset
            target = self.feedback.lessons.steer(count_spec.key, target + offset, rng) - offset
            low = count_spec.low - offset if count_spec.hard_low and count_spec.low is not None else 0
            high = count_spec.high - offset if count_spec.hard_high and count_spec.high is not None else target
            target = max(low, min(target, high))
        word = item_specs.get(id(rep))
        if rep.characters and word is not None and count is None and word.hard_low and word.hard_high:
            return None  # a word of a fixed length
        if target == current:
            return None
        key = f"{'grow' if target > current else 'shrink'}:{count_spec.key if count_spec else 'rep'}"
        if not self._allowed(key):
            return None
        self._resize_all(group, target, item_specs)
        # a shrunk list says what the validator thinks of its count; a grown one may be rejected
        # for the items it gained (a bound on a count is learnt from below only)
        if count_spec is not None and target < current:
            self.values.append((count_spec.key, target + offset))
        return key

    def _resize_all(self, group: list[Rep], target: int, item_specs: dict[int, SlotSpec]) -> None:
        """Every list of a group (sized by one count) to ``target`` items, removing and copying at
        the same places (parallel arrays stay parallel)."""
        rng = self.rng
        current = len(group[0].items)
        if target < current:
            doomed = sorted(rng.sample(range(current), current - target), reverse=True)
            for rep in group:
                keep = set(range(len(rep.items))) - set(doomed)
                rep.items[:] = [item for index, item in enumerate(rep.items) if index in keep]
            return
        count = self._affordable(group, target - current)
        if count <= 0:
            return
        if current == 0:
            for rep in group:
                if rep.inline:
                    spec = item_specs.get(id(rep))
                    rep.items.extend(self._fresh(rep, spec) for _ in range(count))
            return
        sources = [rng.randrange(current) for _ in range(count)]
        places = sorted(rng.randrange(current + 1) for _ in range(count))
        for rep in group:
            spec = item_specs.get(id(rep))
            if count <= _INSERT_ONE_BY_ONE:
                for source, place in zip(sources, places, strict=True):
                    rep.items.insert(min(place, len(rep.items)), self._copy_of(rep, rep.items[source], spec))
                continue
            added = [self._copy_of(rep, rep.items[source], spec) for source in sources]
            merged: list = []
            previous = 0
            for place, item in zip(places, added, strict=True):
                merged.extend(rep.items[previous:place])
                merged.append(item)
                previous = place
            merged.extend(rep.items[previous:])
            rep.items[:] = merged

    def _affordable(self, group: list[Rep], count: int) -> int:
        """As many of ``count`` new items per list as the room left allows, taken from it."""
        each = 0.0
        for rep in group:
            if rep.inline:
                sample = rep.items[:8]
                each += (sum(len(item) for item in sample) / len(sample) if sample else 1) + (0 if rep.characters else 1)
            else:
                each += len(render(rep.items[0])) if rep.items else 1
        each = max(1.0, each)
        affordable = min(count, int(self.room // each))
        self.room -= affordable * each
        return affordable

    def _character(self, spec: SlotSpec | None, alphabet: Sequence[str], *, explore: bool = True) -> str:
        """A character for a word of the slot: one the validator took there, most of the time;
        now and then one the programs' literals name that the slot's alphabet lacks (samples
        rarely show the character a wrong solution mishandles: ``y`` among vowels, ``+`` in HQ9+)."""
        if explore and self.literal_characters and self.rng.random() < LITERAL_SHARE:
            refused = self.feedback.lessons.refused_characters(spec.key) if spec is not None else set()
            extra = [c for c in self.literal_characters if c not in alphabet and c not in refused]
            if extra:
                return self.rng.choice(extra)
        if spec is None:
            return self.rng.choice(alphabet)
        return self.feedback.lessons.character(spec.key, alphabet, self.rng, explore=explore)

    def _fresh(self, rep: Rep, spec: SlotSpec | None) -> str:
        if rep.characters:  # (one of many new characters: no new kind among them)
            return self._character(spec, spec.alphabet if spec is not None and spec.alphabet else self.alphabet,
                                   explore=False)
        if spec is not None:
            return draw_token(spec, self.rng)
        return str(self.rng.choice((0, 1, 2)))

    def _copy_of(self, rep: Rep, model: Any, spec: SlotSpec | None) -> Any:
        """A new item like ``model``: a fresh character, a number near it or new, or a copy."""
        rng = self.rng
        if not rep.inline:
            return clone_element(model)
        if rep.characters:
            return self._fresh(rep, spec)
        if is_integer(model) and (spec is None or spec.numeric) and not (spec is not None and spec.choices) \
                and rng.random() < 0.7:
            if rng.random() < 0.3:
                return self.new_number(model, spec)[0]
            new = int(model) + rng.randint(-3, 3)
            return str(spec.clamp(new) if spec is not None else new)
        return model

    def arrange(self, tree: Block) -> str | None:
        candidates = [rep for rep in reps(tree) if len(rep.items) > 1]
        if not candidates:
            return None
        rep = self.rng.choice(candidates)
        rng = self.rng
        numeric = rep.inline and all(is_integer(i) or is_float(i) for i in rep.items)
        hows = ("sort", "reverse", "shuffle", "equal", "swap", "sort-desc", "few")
        how = rng.choice((*hows, "least") if numeric and all(is_integer(i) for i in rep.items) else hows)
        key = f"arrange:{how}"
        if not self._allowed(key):
            return None
        if how == "least":  # every item 0 (or 1, or the slot's least): the degenerate case of a list
            spec = part_specs(tree)[0].get(id(rep))
            least = str(spec.clamp(rng.choice((0, 1))) if spec is not None else rng.choice((0, 1)))
            rep.items[:] = [least] * len(rep.items)
            return key
        if how in ("sort", "sort-desc") and rep.inline:
            rep.items.sort(key=float if numeric else str, reverse=how == "sort-desc")  # type: ignore[arg-type]
        elif how == "reverse" or (how in ("sort", "sort-desc") and not rep.inline):
            rep.items.reverse()
        elif how == "shuffle":
            rng.shuffle(rep.items)
        elif how == "equal":
            model = rng.choice(rep.items)
            rep.items[:] = [model if rep.inline else clone_element(model) for _ in rep.items]
        elif how == "few":  # two or three values, many times each (ties in a long list)
            palette = rng.sample(rep.items, min(len(rep.items), rng.choice((2, 3))))
            rep.items[:] = [rng.choice(palette) if rep.inline else clone_element(rng.choice(palette))
                            for _ in rep.items]
        else:
            i, j = rng.randrange(len(rep.items)), rng.randrange(len(rep.items))
            rep.items[i], rep.items[j] = rep.items[j], rep.items[i]
        return key

    # -- words -----------------------------------------------------------------------------------

    def word(self, tree: Block) -> str | None:
        rng = self.rng
        words = [slot for slot in slots(tree) if not numeric(slot)]
        item_specs, _ = part_specs(tree)
        characters = [rep for rep in reps(tree) if rep.characters and rep.items]
        if characters and (not words or rng.random() < 0.5):
            rep = rng.choice(characters)
            spec = item_specs.get(id(rep))
            if self.literals and rng.random() < LITERAL_SHARE:
                return self._literal_characters(rep, spec)
            key = f"char:{spec.key if spec else '?'}"
            if not self._allowed(key):
                return None
            alphabet = spec.alphabet if spec is not None and spec.alphabet else self.alphabet
            char = self._character(spec, alphabet)
            rep.items[rng.randrange(len(rep.items))] = char
            if spec is not None:
                self.values.append((spec.key, char))
            return key
        if not words:
            return None
        slot = rng.choice(words)
        spec = slot.spec
        if self.literals and not (spec is not None and spec.choices) and rng.random() < LITERAL_SHARE:
            return self._literal(slot)
        key = f"word:{slot.key}"
        if not self._allowed(key):
            return None
        if spec is not None and spec.choices:
            slot.holder[slot.index] = rng.choice(spec.choices)
            return key
        alphabet = spec.alphabet if spec is not None and spec.alphabet else self.alphabet
        fixed = spec is not None and spec.hard_low and spec.hard_high and spec.low == spec.high
        word = slot.token
        position = rng.randrange(len(word) + 1)
        roll = rng.random()
        lessons = self.feedback.lessons
        if spec is not None and word and roll < 0.7 and lessons.length(spec.key, len(word) + 1, rng) != len(word) + 1:
            fixed = True  # one character longer is known to be rejected: replace one instead
        if (roll < 0.7 or fixed) and (word or not fixed):
            char = self._character(spec, alphabet)
            if (roll < 0.4 or fixed) and word:
                position = min(position, len(word) - 1)
                word = word[:position] + char + word[position + 1:]
            else:
                word = word[:position] + char + word[position:]
            if spec is not None:  # one character set: what the validator says of the word is about it
                self.values.append((spec.key, Word(word)))
        elif roll < 0.85 and spec is not None:
            word = draw_token(spec, rng, alphabet="".join(self.alphabet))
            if lessons.narrowed(spec.key):
                word = "".join(_characters(word, spec, lessons, rng))
        elif len(word) > 1:
            word = word[:position] + word[position + 1:]
        slot.holder[slot.index] = word or rng.choice(alphabet)
        return key


    def _literal(self, slot: Slot) -> str | None:
        """A word the programs name (a keyword, a name), as the slot's whole word or spliced into
        it; judged apart from other changes of words, which the validator may reject nearly always."""
        key = f"literal:{slot.key}"
        spec = slot.spec
        if not self._allowed(key) or (spec is not None and spec.hard_low and spec.hard_high and spec.low == spec.high):
            return None
        literal = self.rng.choice(self.literals)
        word = slot.token
        position = self.rng.randrange(len(word) + 1)
        word = literal if self.rng.random() < 0.5 else word[:position] + literal + word[position:]
        slot.holder[slot.index] = word
        if spec is not None:
            self.values.append((spec.key, Word(word)))
        return key

    def _literal_characters(self, rep: Rep, spec: SlotSpec | None) -> str | None:
        """A word the programs name as a word of characters (``word[n]``, a grid's row): written
        over it where it stands, or in its place (its count follows its new length)."""
        key = f"literal:{spec.key if spec else '?'}"
        if not self._allowed(key):
            return None
        literal = list(self.rng.choice(self.literals))
        if self.rng.random() < 0.5 and len(rep.items) >= len(literal):
            start = self.rng.randrange(len(rep.items) - len(literal) + 1)
            rep.items[start:start + len(literal)] = literal
        else:
            rep.items[:] = literal
        return key
