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

When the search has an input format (``--input-format``, or one inferred from the examples, a
statement and the programs: :mod:`divergent.formats`), inputs are read by it, so every token has
its type and bounds: numbers stay within the stated bounds (and go past the ones only seen in
examples now and then), words keep their alphabet and length, counts stay within theirs, and the
lists one count sizes are resized together. Without examples, the first inputs are drawn from it.

The validator (``--validator``) judges every child before it runs; the numbers it names in its
rejections become boundaries too, and the kinds of change it rejects every time (an operator on a
slot: :mod:`divergent.engines.text_feedback`) are no longer made.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence

from divergent.comparison import behaviour_fingerprint
from divergent.engines.base import Engine, EngineContext
from divergent.engines.text_feedback import Rejections
from divergent.engines.text_operators import SPECIAL, TreeMutator
from divergent.engines.text_structure import Block, clone, parse, render
from divergent.errors import EngineCannotProceed
from divergent.formats.instances import Misfit, generate, read
from divergent.formats.model import InputFormat
from divergent.records import AnyInput, Observation, TextInput

__all__ = ["TextMutationEngine", "boundary_numbers", "numbers_in_text"]

#: the sizes a repeated part may grow to, one level after another
SIZE_LEVELS = (20, 70, 300, 1024, 10_000, 100_000, 200_000)
#: the largest input the engine makes
MAX_TEXT = 4 * 1024 * 1024
_MAX_FRUITLESS = 2000
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
    values: dict[int, None] = dict.fromkeys(SPECIAL)
    for value in seen:
        for delta in (0, -1, 1):
            values[value + delta] = None
    return list(values)


class TextMutationEngine(Engine):
    """Structure-aware mutation of a pool of text inputs that grows with new behaviours."""

    name = "mutation"

    def __init__(self, context: EngineContext) -> None:
        super().__init__(context)
        services = context.services
        if services is None:
            raise EngineCannotProceed("unsupported", "text mutation is for whole programs")
        self._rng = context.rng("text-mutation")
        #: the input format (given or inferred), or None: trees are then guessed from each input
        self._format: InputFormat | None = services.input_format
        seeds = list(context.text_seeds)
        self._started_blind = not seeds
        if not seeds:
            seeds = self._starters()
        self._pool: list[tuple[TextInput, Block]] = [(seed, self._tree_of(seed.text)) for seed in seeds]
        self._seed_count = len(self._pool)
        self._pending: list[TextInput] = seeds if self._started_blind else []
        self._favoured: deque[tuple[TextInput, Block]] = deque(maxlen=256)
        self._recent: deque[tuple[TextInput, Block]] = deque(maxlen=512)
        self._trees: dict[str, Block] = {seed.key: tree for seed, tree in self._pool}
        self._seen: set[str] = {seed.key for seed in seeds}
        self._behaviours: set[str] = set()
        self._quiet_rounds = 0
        self._level = 0
        sources = "\n".join(program.source for program in context.implementations)
        example_numbers = [n for seed in seeds for n in numbers_in_text(seed.text, 200)]
        self._learned: set[int] = set()
        #: the numbers of the sources and the examples
        self._local: set[int] = {n for n in (*numbers_in_text(sources), *example_numbers) if abs(n) <= 10**18}
        self._numbers = boundary_numbers(sorted(self._local))
        alphabet = sorted({c for seed in seeds for c in seed.text if not c.isspace()}) or list("ab")
        #: what the validator said about the children, by the operators that made them
        self.feedback = Rejections()
        self._mutator = TreeMutator(self._rng, numbers=lambda: self._numbers,
                                    named=lambda: sorted(self._learned | self._local), alphabet=alphabet,
                                    feedback=self.feedback, size_cap=lambda: self.size_cap)

    def _starters(self) -> list[TextInput]:
        """Inputs to start from without examples: drawn from the format, else tiny guesses."""
        if self._format is not None:
            drawn = []
            for cap in (1, 2, 3, 5, 8, 8, 16, 17):
                try:
                    drawn.append(TextInput(render(generate(self._format, self._rng, cap=cap)), how_generated=self.name))
                except Misfit:
                    break
            unique = list({item.key: item for item in drawn}.values())
            if unique:
                return unique
        return [TextInput(text, how_generated=self.name) for text in _STARTERS]

    def _tree_of(self, text: str) -> Block:
        """The tree of an input: read by the format when it fits, else guessed from the text."""
        if self._format is not None:
            tree = read(self._format, text)
            if tree is not None:
                return tree
        return parse(text)

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
        keys = []
        # one change half of the time: what the validator says of it is then about that change
        for _ in range(1 if self._rng.random() < 0.5 else self._rng.randint(2, 3)):
            key = self._mutator.mutate(tree)
            if key is not None:
                keys.append(key)
        if not keys:
            return None
        text = render(tree)
        if len(text) > MAX_TEXT:
            return None
        child = TextInput(text, how_generated=self.name)
        if child.key in self._seen:
            return None
        self._seen.add(child.key)
        self._trees[child.key] = tree
        self._recent.append((child, tree))
        self.feedback.made(child, keys)
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

    # -- feedback -----------------------------------------------------------------------------

    @property
    def explored(self) -> str:
        """The kinds of input the validator always rejected, which the engine stopped making."""
        given_up = self.feedback.given_up()
        if not given_up:
            return ""
        shown = ", ".join(given_up[:4]) + (f" and {len(given_up) - 4} more" if len(given_up) > 4 else "")
        return f"stopped making what the validator always rejected: {shown}"

    def observe(self, observations: Sequence[Observation]) -> None:
        novel = 0
        for observation in observations:
            item = observation.input
            if not isinstance(item, TextInput):
                continue
            self._seen.add(item.key)
            self.feedback.ran(item.key)
            behaviour = behaviour_fingerprint(observation)
            if behaviour in self._behaviours and not observation.divergent:
                continue
            self._behaviours.add(behaviour)
            novel += 1
            tree = self._trees.get(item.key)
            if tree is None:
                if len(item.text) > MAX_TEXT:
                    continue
                tree = self._tree_of(item.text)
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
        self.feedback.settle(services)
        # a rejected child is no parent (its children would be rejected for what it broke)
        kept = [entry for entry in self._recent if not services.rejection_reason(entry[0])]
        if len(kept) < len(self._recent):
            self._recent = deque(kept, maxlen=self._recent.maxlen)
        fresh = [n for message in services.rejection_messages() for n in numbers_in_text(message, 20)
                 if n not in self._learned]
        if fresh:
            self._learned.update(fresh)
            self._numbers = list(dict.fromkeys([*boundary_numbers(fresh), *self._numbers]))
