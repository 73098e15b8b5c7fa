"""Structure-aware mutation of text inputs (whole programs reading stdin).

Each input in the pool is read into its structure (:mod:`divergent.engines.text_structure`):
lines, tokens, and the counts that say how many things follow. A child is a parent with one to
three mutations, each of which keeps the counts true (a count is written from the size of what it
counts):

* a number moves toward a boundary: 0, ±1, its neighbours, its negation, half and double, the
  limits seen in the examples, in the programs' sources and in the validator's rejections, powers
  of two and ten, 2^31, 10^9, 10^18 and their neighbours;
* a word or a character changes (characters seen in the input first);
* a repeated part (the numbers of a list, the records after a count, the test cases after ``t``)
  grows, shrinks, loses or duplicates an element; its elements are sorted, reversed, shuffled or
  made all equal (ties), since that is where solutions differ;
* sizes grow from small to large: the cap on a repeated part's size starts small and rises when
  the engine stops finding new behaviours.

The validator (``--validator``) judges every child before it runs; the numbers it names in its
rejections become boundaries too.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from typing import Any

from divergent.comparison import behaviour_fingerprint
from divergent.engines.base import Engine, EngineContext
from divergent.engines.text_structure import (
    Block,
    Line,
    Rep,
    clone,
    clone_element,
    is_float,
    is_integer,
    parse,
    render,
    reps,
    token_slots,
)
from divergent.errors import EngineCannotProceed
from divergent.records import AnyInput, Observation, TextInput

__all__ = ["TextMutationEngine", "boundary_numbers", "numbers_in_text"]

#: the sizes a repeated part may grow to, one level after another
SIZE_LEVELS = (8, 32, 128, 1024, 10_000, 100_000, 200_000)
#: the largest input the engine makes
MAX_TEXT = 4 * 1024 * 1024
_SPECIAL = (
    0, 1, -1, 2, 3, 7, 10, 100, 127, 128, 255, 256, 1000, 1023, 1024, 65535, 65536, 100_000, 200_000, 1_000_000,
    2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32 - 1, 2**32, 10**9, 10**9 + 7, 998_244_353, 10**18, 2**62,
    2**63 - 1, -(2**63), 10**18 + 1, -(10**9), -(10**18),
)
_MAX_FRUITLESS = 2000
#: up to this many new items are inserted one by one; more are merged in at once
_INSERT_ONE_BY_ONE = 16
_MAX_POOL = 2000
_STARTERS = ("1\n", "0\n", "2\n1 2\n", "3\n1 2 3\n", "1 1\n", "1\n1\n", "a\n")
_NUMBERS = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE]\d+)?(?![\w.])")


def numbers_in_text(text: str, limit: int = 400) -> list[int]:
    """Integers written in a text (a source, a validator's message): ``200000``, ``1e9``, ``-5``."""
    found: dict[int, None] = {}
    for match in _NUMBERS.finditer(text):
        token = match.group(0)
        try:
            value = int(float(token)) if ("e" in token.lower() or "." in token) else int(token)
        except (ValueError, OverflowError):
            continue
        if abs(value) <= 10**19:
            found[value] = None
        if len(found) >= limit:
            break
    return list(found)


def boundary_numbers(seen: Sequence[int]) -> list[int]:
    """The special values, and each seen number with its neighbours."""
    values: dict[int, None] = dict.fromkeys(_SPECIAL)
    for value in seen:
        for delta in (0, -1, 1):
            values[value + delta] = None
    return list(values)


class TextMutationEngine(Engine):
    """Structure-aware mutation of a pool of text inputs that grows with new behaviours."""

    name = "mutation"

    def __init__(self, context: EngineContext) -> None:
        super().__init__(context)
        if context.services is None:
            raise EngineCannotProceed("unsupported", "text mutation is for whole programs")
        self._rng = context.rng("text-mutation")
        seeds = list(context.text_seeds)
        self._started_blind = not seeds
        if not seeds:
            seeds = [TextInput(text, how_generated=self.name) for text in _STARTERS]
        self._pool: list[tuple[TextInput, Block]] = [(seed, parse(seed.text)) for seed in seeds]
        self._seed_count = len(self._pool)
        self._pending: list[TextInput] = seeds if self._started_blind else []
        self._favoured: deque[tuple[TextInput, Block]] = deque(maxlen=256)
        self._recent: deque[tuple[TextInput, Block]] = deque(maxlen=512)
        self._trees: dict[str, Block] = {seed.key: tree for seed, tree in self._pool}
        self._seen: set[str] = {seed.key for seed in seeds}
        self._behaviours: set[str] = set()
        self._fruitless = 0
        self._quiet_rounds = 0
        self._level = 0
        sources = "\n".join(program.source for program in context.implementations)
        example_numbers = [n for seed in seeds for n in numbers_in_text(seed.text, 200)]
        self._learned: set[int] = set()
        #: the numbers of the sources and the examples
        self._local: set[int] = {n for n in (*numbers_in_text(sources), *example_numbers) if abs(n) <= 10**18}
        self._numbers = boundary_numbers(sorted(self._local))
        self._alphabet = sorted({c for seed in seeds for c in seed.text if not c.isspace()}) or list("ab")

    # -- proposing --------------------------------------------------------------------------

    def propose(self, n: int) -> list[AnyInput]:
        self._learn_from_validator()
        batch: list[AnyInput] = []
        while self._pending and len(batch) < n:
            batch.append(self._pending.pop(0))
        attempts = 0
        while len(batch) < n and attempts < _MAX_FRUITLESS:
            attempts += 1
            child = self._child()
            if child is None:
                continue
            batch.append(child)
        if not batch:
            raise EngineCannotProceed("exhausted", f"{_MAX_FRUITLESS} mutations in a row gave only inputs tried before")
        return batch

    def _child(self) -> TextInput | None:
        _, parent_tree = self._parent()
        tree = clone(parent_tree)
        for _ in range(self._rng.randint(1, 3)):
            self._mutate(tree)
        text = render(tree)
        if len(text) > MAX_TEXT:
            return None
        child = TextInput(text, how_generated=self.name)
        if child.key in self._seen:
            return None
        self._seen.add(child.key)
        self._trees[child.key] = tree
        self._recent.append((child, tree))
        return child

    def _parent(self) -> tuple[TextInput, Block]:
        roll = self._rng.random()
        if self._favoured and roll < 0.3:
            return self._rng.choice(self._favoured)
        if self._recent and roll < 0.6:
            return self._rng.choice(self._recent)
        return self._rng.choice(self._pool)

    @property
    def size_cap(self) -> int:
        return SIZE_LEVELS[self._level]

    # -- operators ----------------------------------------------------------------------------

    def _mutate(self, tree: Block) -> None:
        rng = self._rng
        roll = rng.random()
        if roll < 0.08 and self._extreme(tree):
            return
        if roll < 0.45 and self._number(tree):
            return
        if roll < 0.75 and self._resize(tree):
            return
        if roll < 0.88 and self._arrange(tree):
            return
        if not self._word(tree):
            self._number(tree)

    def _number(self, tree: Block) -> bool:
        slots = [(holder, i) for holder, i in token_slots(tree) if is_integer(holder[i]) or is_float(holder[i])]
        if not slots:
            return False
        holder, index = self._rng.choice(slots)
        holder[index] = self._new_number(holder[index])
        return True

    def _new_number(self, token: str) -> str:
        rng = self._rng
        if is_float(token) and not is_integer(token):
            decimals = len(token.split(".", 1)[1]) if "." in token and "e" not in token.lower() else 6
            value = float(token)
            choice = rng.choice((0.0, -value, value * 10, value / 10, value + 10**-decimals, 1e9, -1e9, 0.5))
            return f"{choice:.{decimals}f}"
        value = int(token)
        roll = rng.random()
        if roll < 0.35:
            new = rng.choice((0, 1, -1, value + 1, value - 1, -value, value * 2, value // 2, value + rng.randint(-10, 10)))
        elif roll < 0.85:
            new = rng.choice(self._numbers)
        elif roll < 0.93:
            new = rng.choice((2, 10)) ** rng.randint(1, 62 if rng.random() < 0.5 else 18)
        else:
            new = rng.randint(-abs(value) - 10, abs(value) + 10)
        return str(new)

    def _extreme(self, tree: Block) -> bool:
        """Every number of one line (or list) set to one extreme value at once: the classic "all
        values at their maximum" case, where sums and products overflow."""
        groups: list[list[tuple[list, int]]] = []
        for line in (node for node in tree if isinstance(node, Line)):
            slots = [(line.parts, i) for i, part in enumerate(line.parts) if isinstance(part, str) and is_integer(part)]
            if len(slots) > 1:
                groups.append(slots)
        for rep in reps(tree):
            if rep.inline and not rep.characters:
                slots = [(rep.items, i) for i, item in enumerate(rep.items) if is_integer(item)]
                if len(slots) > 1:
                    groups.append(slots)
        if not groups:
            return False
        slots = self._rng.choice(groups)
        # the limits the task names (validator, sources, examples) before the generic extremes
        named = sorted(self._learned | self._local)
        if named and self._rng.random() < 0.8:
            value = named[-1] if self._rng.random() < 0.5 else self._rng.choice(named)
        else:
            value = self._rng.choice(_SPECIAL)
        for holder, index in slots:
            holder[index] = str(value)
        return True

    def _resize(self, tree: Block) -> bool:
        candidates = [rep for rep in reps(tree) if not rep.characters or rep.items]
        if not candidates:
            return False
        rep = self._rng.choice(candidates)
        rng = self._rng
        current = len(rep.items)
        roll = rng.random()
        if roll < 0.25:
            self._remove(rep)
        elif roll < 0.5:
            self._duplicate(rep, 1)
        else:
            target = rng.choice((0, 1, 2, current - 1, current + 1, current * 2, current // 2, self.size_cap,
                                 rng.randint(0, self.size_cap)))
            target = max(0, min(target, self.size_cap))
            if target < current:
                for _ in range(current - target):
                    self._remove(rep)
            elif target > current:
                self._duplicate(rep, target - current)
        return True

    def _remove(self, rep: Rep) -> None:
        if rep.items:
            del rep.items[self._rng.randrange(len(rep.items))]

    def _duplicate(self, rep: Rep, count: int) -> None:
        rng = self._rng
        if not rep.items:
            if rep.inline:
                rep.items.extend(rng.choice(self._alphabet) if rep.characters else str(rng.choice((0, 1, 2)))
                                 for _ in range(count))
            return  # an empty list of records: nothing to copy from
        if count <= _INSERT_ONE_BY_ONE:
            for _ in range(count):
                item = self._copy_of(rep, rng.choice(rep.items))
                rep.items.insert(rng.randrange(len(rep.items) + 1), item)
            return
        # Many at once (a resize to the size cap): copies of the items there were, merged in at
        # random places in one pass (inserting one by one is quadratic: seconds for 10^5 items).
        originals = rep.items
        added = [self._copy_of(rep, rng.choice(originals)) for _ in range(count)]
        places = sorted(rng.randrange(len(originals) + 1) for _ in range(count))
        merged: list = []
        previous = 0
        for place, item in zip(places, added, strict=True):
            merged.extend(originals[previous:place])
            merged.append(item)
            previous = place
        merged.extend(originals[previous:])
        rep.items[:] = merged

    def _copy_of(self, rep: Rep, model: Any) -> Any:
        """A new item like ``model``: a fresh character, a number near it or new, or a copy."""
        rng = self._rng
        if not rep.inline:
            return clone_element(model)
        if rep.characters:
            return rng.choice(self._alphabet)
        if is_integer(model) and rng.random() < 0.7:
            return self._new_number(model) if rng.random() < 0.3 else str(int(model) + rng.randint(-3, 3))
        return model

    def _arrange(self, tree: Block) -> bool:
        candidates = [rep for rep in reps(tree) if len(rep.items) > 1]
        if not candidates:
            return False
        rep = self._rng.choice(candidates)
        rng = self._rng
        how = rng.choice(("sort", "reverse", "shuffle", "equal", "swap", "sort-desc"))
        numeric = rep.inline and all(is_integer(i) or is_float(i) for i in rep.items)
        if how in ("sort", "sort-desc") and rep.inline:
            key = float if numeric else str
            rep.items.sort(key=key, reverse=how == "sort-desc")  # type: ignore[arg-type]
        elif how == "reverse" or (how in ("sort", "sort-desc") and not rep.inline):
            rep.items.reverse()
        elif how == "shuffle":
            rng.shuffle(rep.items)
        elif how == "equal":
            model = rng.choice(rep.items)
            rep.items[:] = [model if rep.inline else clone_element(model) for _ in rep.items]
        else:
            i, j = rng.randrange(len(rep.items)), rng.randrange(len(rep.items))
            rep.items[i], rep.items[j] = rep.items[j], rep.items[i]
        return True

    def _word(self, tree: Block) -> bool:
        rng = self._rng
        words = [(holder, i) for holder, i in token_slots(tree) if not (is_integer(holder[i]) or is_float(holder[i]))]
        characters = [rep for rep in reps(tree) if rep.characters and rep.items]
        if characters and (not words or rng.random() < 0.5):
            rep = rng.choice(characters)
            rep.items[rng.randrange(len(rep.items))] = rng.choice(self._alphabet)
            return True
        if not words:
            return False
        holder, index = rng.choice(words)
        word = holder[index]
        position = rng.randrange(len(word) + 1)
        roll = rng.random()
        if roll < 0.4 and word:
            word = word[:position] + rng.choice(self._alphabet) + word[position + 1 :]
        elif roll < 0.7:
            word = word[:position] + rng.choice(self._alphabet) + word[position:]
        elif len(word) > 1:
            word = word[:position] + word[position + 1 :]
        holder[index] = word or rng.choice(self._alphabet)
        return True

    # -- feedback -----------------------------------------------------------------------------

    def observe(self, observations: Sequence[Observation]) -> None:
        novel = 0
        for observation in observations:
            item = observation.input
            if not isinstance(item, TextInput):
                continue
            self._seen.add(item.key)
            behaviour = behaviour_fingerprint(observation)
            if behaviour in self._behaviours and not observation.divergent:
                continue
            self._behaviours.add(behaviour)
            novel += 1
            tree = self._trees.get(item.key)
            if tree is None:
                if len(item.text) > MAX_TEXT:
                    continue
                tree = parse(item.text)
            entry = (item, tree)
            if len(self._pool) < _MAX_POOL:
                self._pool.append(entry)
            else:
                self._pool[self._rng.randrange(self._seed_count, _MAX_POOL)] = entry
            if observation.divergent:
                self._favoured.append(entry)
        if len(self._trees) > 4 * _MAX_POOL:
            keep = {item.key for item, _ in (*self._pool, *self._favoured, *self._recent)}
            self._trees = {key: tree for key, tree in self._trees.items() if key in keep}
        if observations and not novel:
            self._quiet_rounds += 1
            if self._quiet_rounds >= 2 and self._level < len(SIZE_LEVELS) - 1:
                self._level += 1
                self._quiet_rounds = 0
        elif novel:
            self._quiet_rounds = 0

    def _learn_from_validator(self) -> None:
        services = self.context.services
        if services is None:
            return
        fresh = [n for message in services.rejection_messages() for n in numbers_in_text(message, 20)
                 if n not in self._learned]
        if fresh:
            self._learned.update(fresh)
            self._numbers = list(dict.fromkeys([*boundary_numbers(fresh), *self._numbers]))

