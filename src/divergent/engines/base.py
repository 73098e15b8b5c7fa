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
from typing import TYPE_CHECKING, ClassVar, Protocol

from divergent.comparison import Comparison
from divergent.engines.settings import EngineSettings, ModelAccess
from divergent.policy import DEFAULT_POLICY
from divergent.programs import Program, Signature
from divergent.records import AnyInput, Input, Observation, Proof, TextInput

if TYPE_CHECKING:
    from divergent.engines.constants import Constants
    from divergent.engines.text.lessons import Lessons
    from divergent.formats.model import InputFormat
    from divergent.sandbox.limits import Limits
    from divergent.sandbox.process_runner import ProgramService
    from divergent.sandbox.runner import Runner
    from divergent.structure.inputs import ShapedInputs


class TextServices(Protocol):
    """What a search over programs reading a text offers the engines of texts: the validator's
    verdicts, the generator program, a runner (``divergent.kinds.texts.TextSubjects``)."""

    #: the generator program (``--generator``: prints one input, its seed in argv[1]), or None
    generator: ProgramService | None
    #: what an input is made of (``--input-format``, or inferred from the examples, a statement and
    #: the programs: :mod:`divergent.formats`), or None when nothing said
    input_format: InputFormat | None
    #: what the validator taught the engines of texts about the format's slots, shared by them
    #: (an engine without it, in a test or a benchmark, keeps its own)
    lessons: Lessons
    #: every input of a small space whose edges are known for sure (what it is, its inputs, what
    #: judges them: ``divergent.formats.spaces``), or None
    space: tuple[str, list[TextInput], str] | None

    def admit(self, items: Sequence[AnyInput]) -> list[bool]:
        """The validator's verdicts on a batch of inputs (True for all without a validator)."""
        ...

    def rejection_messages(self) -> list[str]:
        """What the validator said about the inputs it rejected lately (it may name limits)."""
        ...

    def rejection_reason(self, item: AnyInput) -> str:
        """What the validator said when it rejected ``item`` ("" when it did not)."""
        ...

    def verdict_of(self, item: AnyInput) -> bool | None:
        """Whether ``item`` was judged valid (None: not judged yet)."""
        ...

    def open_runner(self, timeout_factor: float = 1.0) -> Runner:
        """A runner of the programs under test, for engines that run inputs themselves."""
        ...


@dataclass(frozen=True)
class EngineContext:
    """What every engine may know about the search it takes part in, whatever the kind of program.

    A kind's engines get the kind's own context, a subclass adding what they need:
    :class:`CallContext` (the engines of calls: the signature, the precondition, the shaped values)
    or :class:`TextContext` (the engines of texts: :class:`TextServices`). The kind builds it
    (``Subjects.engine_context``); an engine reads what its kind's context has and never asks which
    context it holds."""

    implementations: tuple[Program, ...]
    #: seed inputs (from files, doctests, asserts, --seeds; for whole programs: examples, test files)
    seeds: tuple[AnyInput, ...]
    constants: Constants
    #: the run's random seed: an engine derives all its randomness from it
    seed: int = 0
    #: sandbox limits and isolation, for engines that start their own sandboxed process
    limits: Limits | None = None
    isolation: str | None = None
    #: wall seconds the whole search may take (engines with a subprocess use it as their own limit)
    seconds: float | None = None
    #: how the search compares outcomes (engines that run inputs themselves compare the same way)
    comparison: Comparison = DEFAULT_POLICY
    #: the language model and what goes with it, for the engines that need one (None: no model)
    model: ModelAccess | None = None
    settings: EngineSettings = field(default_factory=EngineSettings)
    #: how many times the scheduler restarted this engine (0: its first instance); a restarted engine
    #: draws from a fresh random stream (:meth:`rng`) and may start another schedule (sizes)
    restart: int = 0

    def rng(self, salt: str) -> random.Random:
        """A random generator private to one engine, reproducible from the run's seed (and the
        engine's restart: a restarted engine gets a stream of its own)."""
        return random.Random(f"{self.seed}:{salt}" if not self.restart else f"{self.seed}:{salt}:restart {self.restart}")


@dataclass(frozen=True)
class CallContext(EngineContext):
    """The context of the engines of calls (inputs that are Python values)."""

    #: the signature all implementations share (annotations merged: an annotated one wins)
    signature: Signature = field(default_factory=Signature)
    #: the precondition on inputs (annotations are checked separately by the search loop)
    require: Callable[[Input], bool] | None = None
    #: values shaped like the code expects, per parameter (regexes, formats, literals, keys it
    #: uses: :mod:`divergent.structure`); None when nothing was mined
    shaped: ShapedInputs | None = None


@dataclass(frozen=True)
class TextContext(EngineContext):
    """The context of the engines of texts (a program's stdin)."""

    #: what programs reading a text offer their engines (the validator, the generator, a runner)
    services: TextServices = field(kw_only=True)

    @property
    def text_seeds(self) -> tuple[TextInput, ...]:
        """The seeds, as texts (the seeds of a kind whose input is a text)."""
        return self.seeds  # type: ignore[return-value]


class Engine(abc.ABC):
    """Base class of every engine; subclasses set ``name`` and implement :meth:`propose`."""

    name: ClassVar[str]
    #: True for engines that work on their own in a subprocess and are polled (symbolic)
    background: ClassVar[bool] = False
    #: the engine's weight in the portfolio's time shares (1: as much as any other; the user's own
    #: input generator is owed more)
    share: ClassVar[float] = 1.0
    #: True for engines that propose only inputs meeting the preconditions (the annotations, as
    #: :func:`divergent.preconditions.conforms` checks them, and the user's requirement): the
    #: search then does not check them a second time
    checks_preconditions: ClassVar[bool] = False
    #: set by the scheduler before each :meth:`propose` (``time.monotonic()`` values; None: none):
    #: when the turn should end, and when the search ends. An engine whose proposals can take
    #: long (large inputs) returns what it has at the first, and starts nothing that would run
    #: past the second.
    turn_deadline: float | None = None
    deadline: float | None = None
    #: True for engines the scheduler may replace by a fresh instance (``context.restart`` + 1, fresh
    #: random stream, parents from a sample of the search's behaviours) when they stop revealing new
    #: behaviours: engines whose finds depend on where their random walk went
    restartable: ClassVar[bool] = False

    def __init__(self, context: EngineContext) -> None:
        self.context = context

    @abc.abstractmethod
    def propose(self, n: int) -> list[AnyInput]:
        """Up to ``n`` new inputs (may be fewer, even none for a background engine still working).

        Raises EngineCannotProceed when the engine has nothing more to offer.
        """

    @property
    def explored(self) -> str:
        """What the engine explored on its own, beyond the inputs it proposed (a background engine's
        own search, e.g. CrossHair's paths and seconds), for the engines table; "" when its inputs
        say it all."""
        return ""

    def observe(self, observations: Sequence[Observation]) -> None:  # noqa: B027 - optional hook
        """Feedback: every input run so far in the last round, with each implementation's outcome."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (subprocesses, threads)."""

    def failure_note(self) -> str | None:
        """Why the engine failed on its own thread, once it has (None otherwise): read without
        waiting, so a report can say it even when another engine ended the run first."""
        return None

    def proof(self) -> Proof | None:
        """A proof of equivalence, once the engine has one (only the symbolic engine can)."""
        return None

    def valid_space(self) -> tuple[str, Sequence[AnyInput]] | None:
        """Every valid input there is, once the engine knows them (a small space: the validator's
        bounds of ``n`` found): what the space is (``all 25 inputs of an integer in [1, 25]``) and
        its inputs, else None. A search that ran each of them is not too thin, however few they are."""
        return None

    def whole_space(self) -> tuple[str, Sequence[AnyInput], int, str] | None:
        """A finite input space listed from edges known for sure (``divergent.formats.spaces``):
        what it is, its valid inputs, how many inputs were listed and what judged them valid (the
        validator, the statement, ...), once the validity of each listed input is known; None
        before, or when the engine lists none. Once each valid input ran and was judged with no
        difference, the search ends "equivalent on all N valid inputs" (``Verdict.EQUIVALENT_ON_ALL_INPUTS``)."""
        return None

    #: why what the engine explored is no proof, once it knows (a note for the report)
    not_a_proof: str = ""
