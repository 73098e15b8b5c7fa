"""The seed engine for whole programs: the examples and test files, in order, each once; then every
input of a small space whose edges are known for sure (``TextServices.space``: what a given format
or the statement's allows, the examples' one-hot layouts), for the exhaustive verdict.

The validator (when there is one) judged the examples when the search started; the ones it rejected
are gone already. Stops as "exhausted" when all were proposed.
"""

from __future__ import annotations

from collections.abc import Sequence

from divergent.engines.base import Engine, TextContext
from divergent.errors import EngineCannotProceed
from divergent.records import AnyInput, TextInput

__all__ = ["TextSeedEngine"]


class TextSeedEngine(Engine):
    """Proposes the examples and test files (``--example``, ``--inputs``) in order."""

    name = "seeds"

    def __init__(self, context: TextContext) -> None:
        super().__init__(context)
        self._seeds = list(context.text_seeds)
        space = context.services.space
        self._space = space
        if space is not None:
            known = {seed.key for seed in self._seeds}
            self._seeds.extend(item for item in space[1] if item.key not in known)
        self._next = 0

    def propose(self, n: int) -> list[AnyInput]:
        batch: list[AnyInput] = []
        while self._next < len(self._seeds) and len(batch) < n:
            seed = self._seeds[self._next]
            self._next += 1
            batch.append(seed if seed.how_generated else TextInput(seed.text, how_generated=self.name))
        if not batch:
            what = f"and all {len(self._space[1]):,} inputs of the listed space " if self._space is not None else ""
            raise EngineCannotProceed("exhausted", f"all {len(self._seeds)} examples and test files {what}used")
        return batch

    def whole_space(self) -> tuple[str, Sequence[AnyInput], int, str] | None:
        """The listed space's valid inputs, once every one of them was judged valid or not."""
        services = self.context.services
        if self._space is None or self._next < len(self._seeds):
            return None
        what, items, judge = self._space
        verdicts = [services.verdict_of(item) for item in items]
        if any(verdict is None for verdict in verdicts):
            return None
        valid = [item for item, verdict in zip(items, verdicts, strict=True) if verdict]
        if not valid:
            return None
        if len(valid) < len(items):
            judge = judge if "validator" in judge else f"{judge} and the validator"
            what = f"{what}, {len(valid):,} of them valid"
        return what, valid, len(items), judge
