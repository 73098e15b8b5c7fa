"""The engine plugin interface.

An engine proposes inputs and observes what the implementations did on them. The portfolio
(:mod:`divergent.engines.portfolio`) asks each engine for a batch, runs the batch in the sandbox,
and feeds every engine the observations (engines share what they find: a divergent input from
one engine becomes a seed for the mutation engine, for example).

An engine that cannot go on raises :class:`~divergent.errors.EngineCannotProceed` with a reason
("exhausted", "unsupported", "failed"); the portfolio records it and goes on without it.
Engines never run implementation code in this process; the ones that must (symbolic execution)
start their own sandboxed subprocess.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from divergent.engines.settings import EngineSettings, ModelAccess
from divergent.model import Input, Observation
from divergent.policy import DEFAULT_POLICY, EqualityPolicy
from divergent.programs import PythonFunction, Signature

if TYPE_CHECKING:
    from divergent.engines.constants import Constants
    from divergent.sandbox.limits import Limits


@dataclass(frozen=True)
class EngineContext:
    """Everything an engine may know about the search it takes part in."""

    implementations: tuple[PythonFunction, ...]
    #: the signature all implementations share (annotations merged: an annotated one wins)
    signature: Signature
    #: seed inputs (from files, doctests, asserts, --seeds)
    seeds: tuple[Input, ...]
    constants: Constants
    #: the run's random seed: an engine derives all its randomness from it
    seed: int = 0
    #: the precondition on inputs (annotations are checked separately by the search loop)
    require: Callable[[Input], bool] | None = None
    #: sandbox limits and isolation, for engines that start their own sandboxed process
    limits: Limits | None = None
    isolation: str | None = None
    #: wall seconds the whole search may take (engines with a subprocess use it as their own limit)
    seconds: float | None = None
    #: how the search compares outcomes (engines that run inputs themselves compare the same way)
    policy: EqualityPolicy = DEFAULT_POLICY
    #: the language model and what goes with it, for the engines that need one (None: no model)
    model: ModelAccess | None = None
    settings: EngineSettings = field(default_factory=EngineSettings)

    def rng(self, salt: str) -> random.Random:
        """A random generator private to one engine, reproducible from the run's seed."""
        return random.Random(f"{self.seed}:{salt}")


class Engine(abc.ABC):
    """Base class of every engine; subclasses set ``name`` and implement :meth:`propose`."""

    name: ClassVar[str]
    #: True for engines that work on their own in a subprocess and are polled (symbolic)
    background: ClassVar[bool] = False
    #: True for engines that propose only inputs meeting the preconditions (the annotations, as
    #: :func:`divergent.preconditions.conforms` checks them, and the user's requirement): the
    #: search then does not check them a second time
    checks_preconditions: ClassVar[bool] = False

    def __init__(self, context: EngineContext) -> None:
        self.context = context

    @abc.abstractmethod
    def propose(self, n: int) -> list[Input]:
        """Up to ``n`` new inputs (may be fewer, even none for a background engine still working).

        Raises EngineCannotProceed when the engine has nothing more to offer.
        """

    def observe(self, observations: Sequence[Observation]) -> None:  # noqa: B027 - optional hook
        """Feedback: every input run so far in the last round, with each implementation's outcome."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (subprocesses, threads)."""
