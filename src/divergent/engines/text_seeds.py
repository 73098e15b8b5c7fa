"""The seed engine for whole programs: the examples and test files, in order, each once.

The validator (when there is one) judged them when the search started; the ones it rejected are
gone already. Stops as "exhausted" when all were proposed.
"""

from __future__ import annotations

from divergent.engines.base import Engine, EngineContext
from divergent.errors import EngineCannotProceed
from divergent.records import AnyInput, TextInput

__all__ = ["TextSeedEngine"]


class TextSeedEngine(Engine):
    """Proposes the examples and test files (``--example``, ``--inputs``) in order."""

    name = "seeds"

    def __init__(self, context: EngineContext) -> None:
        super().__init__(context)
        if context.services is None:
            raise EngineCannotProceed("unsupported", "the text seed engine is for whole programs")
        self._seeds = context.text_seeds
        self._next = 0

    def propose(self, n: int) -> list[AnyInput]:
        batch: list[AnyInput] = []
        while self._next < len(self._seeds) and len(batch) < n:
            seed = self._seeds[self._next]
            self._next += 1
            batch.append(seed if seed.how_generated else TextInput(seed.text, how_generated=self.name))
        if not batch:
            raise EngineCannotProceed("exhausted", f"all {len(self._seeds)} examples and test files used")
        return batch
