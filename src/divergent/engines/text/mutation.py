"""Structure-aware mutation of text inputs (whole programs reading stdin).

Each input in the pool is read into its structure (:mod:`divergent.formats.text_structure`):
lines, tokens, and the counts that say how many things follow. A child is a parent with one to
three mutations, each of which keeps the counts true (a count is written from the size of what it
counts):

* a number moves toward a boundary: 0, ±1, its neighbours, its negation, half and double, the
  limits seen in the examples, in the programs' sources and in the validator's rejections, powers
  of two and ten, 2^31, 10^9, 10^18 and their neighbours;
* a word or a character changes (characters seen in the input first; now and then a character or
  a word of the programs' string and character literals, which samples rarely show: ``'y'`` among
  vowels, ``'+'`` in HQ9+, a keyboard row);
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
slot: :mod:`divergent.engines.text.feedback`) are no longer made. With a format, the values the
validator accepted and rejected in each slot are learnt: a bound only the examples showed is
found where the validator puts it, and values past it are steered back.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Iterable, Sequence

from divergent.comparison import behaviour_fingerprint
from divergent.engines.base import Engine, TextContext
from divergent.engines.constants import program_literals
from divergent.engines.text.feedback import Rejections, SizeLevels
from divergent.engines.text.lessons import FixedSpace
from divergent.engines.text.mending import mend_patterns
from divergent.engines.text.operators import SPECIAL, TreeMutator, put_in_order
from divergent.errors import EngineCannotProceed
from divergent.formats.instances import Misfit, generate, read, unlinked_counts
from divergent.formats.model import InputFormat
from divergent.formats.text_structure import Block, clone, parse, render
from divergent.records import AnyInput, Observation, TextInput

__all__ = ["TextMutationEngine", "boundary_numbers", "numbers_in_text", "source_words"]

#: the sizes a repeated part may grow to, one level after another
SIZE_LEVELS = (20, 70, 300, 1024, 10_000, 100_000, 200_000)
#: the largest input the engine makes
MAX_TEXT = 4 * 1024 * 1024
_MAX_FRUITLESS = 2000
_MAX_POOL = 2000
_STARTERS = ("1\n", "0\n", "2\n1 2\n", "3\n1 2 3\n", "1 1\n", "1\n1\n", "a\n")
#: trees of larger inputs are not kept (parsed again when one is a parent): bounded memory
_KEEP_TREE_CHARS = 256 * 1024
#: the values of valid inputs up to this size are learnt (as accepted in their slots)
_LEARN_CHARS = 4096
#: a first guess of a child's cost per character of its parent (measured as children are made)
_SECONDS_PER_CHAR = 1e-6
#: parents tried for one child before the engine gives up a turn that has no time for any
_PARENT_TRIES = 4
#: what :meth:`TextMutationEngine._child` returns when no parent can be mutated in the time left
_NO_TIME = TextInput("", how_generated="none")
_NUMBERS = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE]\d+)?(?![\w.])")


def source_words(programs: Iterable[object]) -> list[str]:
    """The words of the programs' string and character literals that could be part of an input:
    printable, without spaces, and not a ``printf``/``scanf`` format (``%d``)."""
    words: dict[str, None] = {}
    for program in programs:
        language = str(getattr(program, "language", ""))
        for literal in program_literals(getattr(program, "source", "") or "", language):
            for word in literal.split():
                if "%" not in word and word.isprintable() and len(word) <= 64:
                    words[word] = None
    return list(words)


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

    def __init__(self, context: TextContext) -> None:
        super().__init__(context)
        services = context.services
        self._rng = context.rng("text-mutation")
        #: the input format (given or inferred), or None: trees are then guessed from each input
        self._format: InputFormat | None = services.input_format
        seeds = list(context.text_seeds)
        self._started_blind = not seeds
        if not seeds:
            seeds = self._starters()
        # (input, its tree or None: read again when it is a parent, for large inputs)
        self._pool: list[tuple[TextInput, Block | None]] = [(seed, _kept(seed.text, self._tree_of(seed.text)))
                                                             for seed in seeds]
        self._seed_count = len(self._pool)
        self._pending: list[TextInput] = seeds if self._started_blind else []
        self._favoured: deque[tuple[TextInput, Block | None]] = deque(maxlen=256)
        self._recent: deque[tuple[TextInput, Block | None]] = deque(maxlen=512)
        self._trees: dict[str, Block] = {seed.key: tree for seed, tree in self._pool if tree is not None}
        #: measured seconds of making a child, per character of parent and child
        self._seconds_per_char = _SECONDS_PER_CHAR
        self._seen: set[str] = {seed.key for seed in seeds}
        self._behaviours: set[str] = set()
        self._sizes = SizeLevels(SIZE_LEVELS)
        sources = "\n".join(program.source for program in context.implementations)
        example_numbers = [n for seed in seeds for n in numbers_in_text(seed.text, 200)]
        self._learned: set[int] = set()
        #: the numbers of the sources and the examples
        self._local: set[int] = {n for n in (*numbers_in_text(sources), *example_numbers) if abs(n) <= 10**18}
        self._numbers = boundary_numbers(sorted(self._local))
        alphabet = sorted({c for seed in seeds for c in seed.text if not c.isspace()}) or list("ab")
        #: what the validator said about the children, by the operators that made them
        self.feedback = Rejections(services.lessons)
        self._mutator = TreeMutator(self._rng, numbers=lambda: self._numbers,
                                    named=lambda: sorted(self._learned | self._local), alphabet=alphabet,
                                    feedback=self.feedback, size_cap=lambda: self.size_cap,
                                    literals=source_words(context.implementations))
        self._unlinked = unlinked_counts(self._format) if self._format is not None else set()
        self._learn_values(tree for _, tree in self._pool)
        #: with a format of one fixed shape of integers: its valid inputs, counted once their bounds are known
        self._space = FixedSpace.of([tree for _, tree in self._pool if tree is not None]) \
            if self._format is not None and all(tree is not None for _, tree in self._pool) else None

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
        """Up to ``n`` children; fewer when the turn's time is up (:attr:`turn_deadline`): a child
        of a large input costs in proportion to its size, and none is started that would not be
        done before the search's end (:attr:`deadline`)."""
        self._learn_from_validator()
        batch: list[AnyInput] = []
        while self._pending and len(batch) < n:
            batch.append(self._pending.pop(0))
        attempts = 0
        out_of_time = False
        while len(batch) < n and attempts < _MAX_FRUITLESS:
            # the first child of a turn may take until the search's end, the others the turn's
            end = self.deadline if not batch else (self.turn_deadline or self.deadline)
            seconds = math.inf if end is None else end - time.monotonic()
            if seconds <= 0:
                out_of_time = True
                break
            attempts += 1
            child = self._child(seconds)
            if child is None:
                continue
            if child is _NO_TIME:
                out_of_time = True
                break
            batch.append(child)
        if not batch and not out_of_time:
            raise EngineCannotProceed("exhausted", f"{_MAX_FRUITLESS} mutations in a row gave only inputs tried before")
        return batch

    def _child(self, seconds: float) -> TextInput | None:
        """A child of a parent that can be mutated within ``seconds`` (None: it was tried before
        or too large; :data:`_NO_TIME`: no parent can be, in that time)."""
        for _ in range(_PARENT_TRIES):
            parent, parent_tree = self._parent()
            if 2 * self._cost(len(parent.text)) <= seconds:  # twice: a loaded machine is slower
                break
        else:
            return _NO_TIME
        started = time.monotonic()
        tree = clone(parent_tree) if parent_tree is not None else self._tree_of(parent.text)
        self._mutator.room = MAX_TEXT - len(parent.text)  # a child must render within MAX_TEXT
        keys = []
        self._mutator.values.clear()
        # one change half of the time: what the validator says of it is then about that change
        for _ in range(1 if self._rng.random() < 0.5 else self._rng.randint(2, 3)):
            key = self._mutator.mutate(tree)
            if key is not None:
                keys.append(key)
        if not keys:
            return None
        lessons = self.feedback.lessons
        if lessons.orders:
            put_in_order(tree, lessons, self._rng)
        # a relation mended changed values the operators set: they no longer tell what was changed
        mended = mend_patterns(tree, lessons, self._rng)
        lessons.slowness.capped(tree, self._rng)
        text = render(tree)
        self._measured(len(parent.text) + len(text), time.monotonic() - started)
        if len(text) > MAX_TEXT:
            return None
        child = TextInput(text, how_generated=self.name)
        if child.key in self._seen:
            return None
        self._seen.add(child.key)
        kept = _kept(text, tree)
        if kept is not None:
            self._trees[child.key] = kept
        self._recent.append((child, kept))
        learn = self._format is not None and len(text) <= _LEARN_CHARS
        self.feedback.made_tree(child, keys, tree if learn else None,
                                [] if mended else self._changed(parent_tree or parent.text, tree, keys))
        return child

    def _changed(self, parent: Block | str, child: Block, keys: list[str]) -> list[tuple[str, int | str]]:
        """The slots' values that tell the child from its parent: those one change set (a later
        change may have moved or removed what an earlier one set); in a fixed shape of integers,
        the one value that differs, whatever changes made it."""
        if len(keys) == 1:
            # (a number that sizes a list it is not tied to, 2n-1 items, is no range's evidence)
            return [(key, value) for key, value in self._mutator.values if key not in self._unlinked]
        if self._space is None:
            return []
        before = self._space.values(parent if not isinstance(parent, str) else self._tree_of(parent))
        after = self._space.values(child)
        if before is None or after is None:
            return []
        differ = [index for index, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
        return [(self._space.specs[differ[0]].key, after[differ[0]])] if len(differ) == 1 else []

    def _cost(self, characters: int) -> float:
        """The expected seconds of a child of a parent of ``characters`` (about as many again for
        the child's own text)."""
        return 2 * characters * self._seconds_per_char

    def _measured(self, characters: int, seconds: float) -> None:
        if characters > 4096:  # small ones say more of the interpreter's overhead than of size
            rate = seconds / characters
            self._seconds_per_char = 0.7 * self._seconds_per_char + 0.3 * rate

    def _parent(self) -> tuple[TextInput, Block | None]:
        roll = self._rng.random()
        if self._favoured and roll < 0.3:
            return self._rng.choice(self._favoured)
        if self._recent and roll < 0.6:
            return self._rng.choice(self._recent)
        return self._rng.choice(self._pool)

    @property
    def size_cap(self) -> int:
        slow = self.feedback.lessons.slowness.cap
        return self._sizes.cap if slow is None else max(1, min(self._sizes.cap, slow))

    # -- feedback -----------------------------------------------------------------------------

    @property
    def explored(self) -> str:
        """The kinds of input the validator always rejected, which the engine stopped making."""
        return self.feedback.explored()

    def observe(self, observations: Sequence[Observation]) -> None:
        novel = 0
        self.feedback.lessons.slowness.observe(observations)
        for observation in observations:
            item = observation.input
            if not isinstance(item, TextInput):
                continue
            self._seen.add(item.key)
            self.feedback.ran(item.key)
            if self._format is not None and len(item.text) <= _LEARN_CHARS:  # every value of a valid input is taken
                self._learn_values([self._trees.get(item.key) or self._tree_of(item.text)])
            behaviour = behaviour_fingerprint(observation)
            if behaviour in self._behaviours and not observation.divergent:
                continue
            self._behaviours.add(behaviour)
            novel += 1
            if len(item.text) > MAX_TEXT:
                continue
            # a large input's tree is made when it is a parent (reading costs as much as its size)
            tree = self._trees.get(item.key)
            if tree is None and len(item.text) <= _KEEP_TREE_CHARS:
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
        self._sizes.after_round(bool(observations), novel)

    def valid_space(self) -> tuple[str, list[TextInput]] | None:
        """Every valid input of a small space of integers, once the validator's bounds are known
        (see :class:`FixedSpace`)."""
        found = self._space.inputs(self.feedback.lessons) if self._space is not None else None
        if found is None:
            return None
        what, texts = found
        return what, [TextInput(text, how_generated=self.name) for text in texts]

    def _learn_values(self, trees: Iterable[Block | None]) -> None:
        """The values of valid inputs (the examples, other engines' finds), read by the format: the
        ranges the validator is known to accept."""
        if self._format is None:
            return
        for tree in trees:
            if tree is not None:
                self.feedback.valid_tree(tree)

    def _learn_from_validator(self) -> None:
        services = self.context.services
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


def _kept(text: str, tree: Block) -> Block | None:
    """The tree to keep for an input (None for a large one: it is read again when needed)."""
    return tree if len(text) <= _KEEP_TREE_CHARS else None
