"""The grammar engine: fresh inputs drawn from the input format (``--input-format``, or the one
inferred from the examples, a statement and the programs: :mod:`divergent.formats`).

Each input has one of the format's counts (the focus, chosen at random) drawn up to the current
size cap and the others small; values at and next to their bounds, small, anywhere in their range,
and lists with many equal values as often as distinct ones, at the sizes where solutions change
algorithm (16, 32, 64 elements and their neighbours: insertion sorts, small hash tables). The cap
grows level by level while the engine stops finding new behaviours; a size the validator rejects
every time (a sum of n over test cases past its limit, say) is no longer drawn. What the validator
taught the engines about each slot (:mod:`divergent.engines.text.lessons`: a bound past the
examples', an alphabet narrower than the one inferred, a word's shape, ``m <= n``) steers every
draw, and every draw teaches it: a valid one all its values, a rejected one the one value in it
beyond what valid inputs held there, if only one is.
"""

from __future__ import annotations

from collections.abc import Sequence

from divergent.comparison import behaviour_fingerprint
from divergent.engines.base import Engine, TextContext
from divergent.engines.text.feedback import Rejections, SizeLevels
from divergent.engines.text.mending import mend_permutations
from divergent.engines.text.operators import steered
from divergent.errors import EngineCannotProceed
from divergent.formats.instances import Misfit, generate
from divergent.formats.text_structure import render
from divergent.formats.values import SlotSpec
from divergent.records import AnyInput, Observation, TextInput

__all__ = ["GrammarEngine"]

#: the caps on the focused count, one level after another
CAPS = (20, 70, 300, 1000, 10_000, 100_000, 200_000)
#: the largest input drawn
_MAX_TEXT = 4 * 1024 * 1024
#: the values of drawn inputs up to this size teach the lessons (reading a larger one costs more)
_LEARN_CHARS = 4096
_MAX_ATTEMPTS = 200


class GrammarEngine(Engine):
    """Inputs drawn from the input format, growing in size."""

    name = "grammar"

    def __init__(self, context: TextContext) -> None:
        super().__init__(context)
        services = context.services
        if services.input_format is None:
            raise EngineCannotProceed("unsupported", "no input format (give an example, a statement or --input-format)")
        self.format = services.input_format
        self._services = services
        self._rng = context.rng("text-grammar")
        self._sizes = SizeLevels(CAPS)
        self._seen: set[str] = set()
        self._behaviours: set[str] = set()
        #: the validator's lessons (shared with mutation) steer every draw
        self.feedback = Rejections(services.lessons)

    def propose(self, n: int) -> list[AnyInput]:
        self.feedback.settle(self._services)
        batch: list[AnyInput] = []
        attempts = 0
        lessons = self.feedback.lessons
        while len(batch) < n and attempts < _MAX_ATTEMPTS:
            attempts += 1
            top = self._sizes.level
            level = top if self._rng.random() < 0.6 else self._rng.randrange(top + 1)
            key = f"drawn:{level}"
            if not self.feedback.allowed(key, self._rng):
                continue
            try:
                slow = lessons.slowness.cap
                cap = CAPS[level] if slow is None else max(1, min(CAPS[level], slow))
                tree = steered(generate(self.format, self._rng, cap=cap, steer=self._steer), lessons, self._rng)
                lessons.slowness.capped(tree, self._rng)
                if lessons.permutations:
                    mend_permutations(tree, lessons, self._rng)
                text = render(tree)
            except Misfit as error:
                raise EngineCannotProceed("failed", f"the input format cannot be drawn from: {error}") from None
            if len(text) > _MAX_TEXT:
                continue
            item = TextInput(text, how_generated=self.name)
            if item.key in self._seen:
                continue
            self._seen.add(item.key)
            self.feedback.made_tree(item, [key], tree if len(text) <= _LEARN_CHARS else None, whole=True)
            batch.append(item)
        if not batch and attempts >= _MAX_ATTEMPTS:
            raise EngineCannotProceed("exhausted", f"{_MAX_ATTEMPTS} draws in a row gave only inputs drawn before")
        return batch

    def _steer(self, spec: SlotSpec, value: int) -> int:
        """A count drawn, moved to where the validator is known to take it."""
        return self.feedback.lessons.steer(spec.key, value, self._rng)

    @property
    def explored(self) -> str:
        """The kinds of input the validator always rejected, which the engine stopped making."""
        return self.feedback.explored()

    def observe(self, observations: Sequence[Observation]) -> None:
        novel = 0
        self.feedback.lessons.slowness.observe(observations)
        for observation in observations:
            self.feedback.ran(observation.input.key)
            behaviour = behaviour_fingerprint(observation)
            if behaviour not in self._behaviours:
                self._behaviours.add(behaviour)
                novel += 1
        self._sizes.after_round(bool(observations), novel)
