"""Typed configuration of the engines, defined once: what each engine may be told besides the search itself.

:class:`EngineSettings` groups the per-engine choices (the mutation engine's operator set, the symbolic
engine's CrossHair strategy, ProbeGen's tree); :class:`ModelAccess` is what the engines that need a
language model get (the model, the task description, the spurious-counterexample filter, a store for
their search trees). Both travel in :class:`~divergent.engines.base.EngineContext`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from divergent.errors import InvalidArgument
from divergent.probegen.strategies import DEFAULT_D, DEFAULT_K, DEFAULT_STRATEGY, TreeStrategy, as_strategy

if TYPE_CHECKING:
    from divergent.llm.chat import ChatModel

#: the symbolic engine's analyses (``divergent.engines.calls.symbolic``)
SYMBOLIC_STRATEGIES = ("auto", "paths", "diff_behavior")


class MutationOperators(enum.StrEnum):
    #: every operator: type-aware mutation plus boundary values and harvested constants (``check``)
    DEFAULT = "default"
    #: the incoherence paper's Gen(d): Table 6's basic mutations only (a fixed input distribution)
    TABLE6 = "table6"


@dataclass(frozen=True)
class ProbeGenSettings:
    """ProbeGen's tree search: the strategy, K (samples at the first turn) and D (turns of feedback)."""

    strategy: TreeStrategy = DEFAULT_STRATEGY
    k: int = DEFAULT_K
    d: int = DEFAULT_D

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy", as_strategy(self.strategy))
        if self.k < 1 or self.d < 1:
            raise InvalidArgument(f"ProbeGen K={self.k!r} and D={self.d!r} must be >= 1")

    @classmethod
    def of(cls, value: ProbeGenSettings | dict[str, Any] | None) -> ProbeGenSettings:
        """Settings from a record, a ``{"strategy", "k", "d"}`` mapping (missing keys: defaults) or None."""
        if value is None:
            return cls()
        if isinstance(value, ProbeGenSettings):
            return value
        if isinstance(value, dict):
            unknown = set(value) - {"strategy", "k", "d"}
            if unknown:
                raise InvalidArgument(f"probegen settings: unknown keys {sorted(unknown)}; use strategy, k, d")
            return cls(**{key: item for key, item in value.items() if item is not None})
        raise InvalidArgument(f"probegen={value!r}: expected ProbeGenSettings or a dict with strategy, k, d")


@dataclass(frozen=True)
class EngineSettings:
    """Per-engine choices; the defaults are what ``check`` uses."""

    mutation_operators: MutationOperators = MutationOperators.DEFAULT
    #: CrossHair's analysis: "auto" (path exploration where this CrossHair has it, else
    #: diff-behaviour), "paths" or "diff_behavior"
    symbolic_strategy: str = "auto"
    probegen: ProbeGenSettings = field(default_factory=ProbeGenSettings)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "mutation_operators", MutationOperators(self.mutation_operators))
        except ValueError:
            choices = ", ".join(m.value for m in MutationOperators)
            raise InvalidArgument(f"mutation_operators={self.mutation_operators!r}: choose from {choices}") from None
        if self.symbolic_strategy not in SYMBOLIC_STRATEGIES:
            raise InvalidArgument(
                f"symbolic_strategy={self.symbolic_strategy!r}: choose from {', '.join(SYMBOLIC_STRATEGIES)}"
            )


@dataclass(frozen=True)
class ModelAccess:
    """What the engines that need a language model are given."""

    chat: ChatModel
    #: the task description (text or markdown), shown to the model
    spec: str | None = None
    #: judges whether a difference matters (``divergent.spurious.SpuriousFilter``); None: all count
    spurious_filter: Any = None
    #: where ProbeGen keeps its search trees (a ``divergent.store.Store``); None: nowhere
    store: Any = None
