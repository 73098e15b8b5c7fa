"""The records that flow through divergent: frozen, typed, and free of behaviour that runs code.

Data flows one way: a :class:`~divergent.programs.Program` (what is under test) → :class:`Input`
(proposed by an engine) → one :class:`Outcome` per program (from the sandbox) →
:class:`Counterexample` → :class:`Report`.
Values produced by untrusted code appear here only in their safe encoded form
(see :mod:`divergent.values`), never as live objects.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

#: A value in the safe canonical encoding of :mod:`divergent.values` (JSON-compatible).
Encoded = Any


@dataclass(frozen=True)
class Input:
    """The arguments of one call, as live (trusted, parent-side) Python values."""

    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    #: which engine proposed it ("seeds", "mutation", "hypothesis", "symbolic", "shrink", ...)
    how_generated: str = ""

    @cached_property
    def key(self) -> str:
        """A canonical text identifying the input, for de-duplication (within one process)."""
        quick = _scalar_key(self.args, self.kwargs)
        if quick is not None:
            return quick
        from divergent.values import canonical_key

        return canonical_key((self.args, dict(self.kwargs)))

    def call(self, function_name: str, *, max_length: int | None = None) -> str:
        """The call as a Python expression, e.g. ``f(1, [2], key='x')``."""
        from divergent.values import to_source

        def render(value: Any) -> str:
            text = to_source(value)
            return text if not max_length or len(text) <= max_length else text[: max_length - 1] + "…"

        parts = [render(a) for a in self.args] + [f"{k}={render(v)}" for k, v in self.kwargs.items()]
        return f"{function_name}({', '.join(parts)})"


#: how much of a text input one-line descriptions show
_TEXT_PREVIEW = 60


@dataclass(frozen=True)
class TextInput:
    """The input of a whole program: the text it reads on stdin (the input kind of
    :class:`~divergent.programs.StdinProgram`). It offers what the search asks of every input: a
    ``key``, ``how_generated`` and a one-line rendering (:meth:`call`)."""

    text: str
    how_generated: str = ""

    @property
    def key(self) -> str:
        """The text itself identifies the input (prefixed: never equal to a call's key)."""
        return "stdin:" + self.text

    def call(self, function_name: str = "", *, max_length: int | None = None) -> str:
        """The input on one line, as notes and reports show it: ``stdin '3\\n1 2 3\\n'`` (the name is
        not used: a program reads its input, it is not called with it)."""
        limit = max_length or _TEXT_PREVIEW * 4
        shown = self.text if len(self.text) <= limit else self.text[: max(1, limit - 1)] + "…"
        suffix = "" if len(self.text) <= limit else f" ({len(self.text):,} characters)"
        return f"stdin {shown!r}{suffix}"

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


@runtime_checkable
class AnyInput(Protocol):
    """Any input an engine proposes, of any kind of program (a call's arguments, a program's stdin):
    what the search, shrinking and the reports ask of every input."""

    @property
    def how_generated(self) -> str:
        """Which engine proposed it ("seeds", "mutation", "shrink", ...)."""
        ...

    @property
    def key(self) -> str:
        """A text identifying it exactly, for de-duplication (never equal to another kind's)."""
        ...

    def call(self, function_name: str, *, max_length: int | None = None) -> str:
        """The input on one line, as notes and reports show it."""
        ...


#: types whose repr identifies a value exactly (repr tells 1 from True and 1.0, -0.0 from 0.0)
_EXACT_REPR_TYPES = frozenset({type(None), bool, int, float, complex, str, bytes})


def _scalar_key(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> str | None:
    """The key of a call made of scalars only, from their reprs (far cheaper than the canonical
    encoding, on the engines' hot path); None for anything else."""
    for value in args:
        if type(value) not in _EXACT_REPR_TYPES or (type(value) is int and value.bit_length() > 4000):
            return None
    if kwargs:
        for value in kwargs.values():
            if type(value) not in _EXACT_REPR_TYPES or (type(value) is int and value.bit_length() > 4000):
                return None
        return "r:" + repr((args, sorted(kwargs.items())))
    return "r:" + repr(args)


class OutcomeKind(enum.StrEnum):
    # a Python function's call
    RETURNED = "returned"
    RAISED = "raised"
    #: past the time limit (a call's timeout; a program's CPU limit or its wall-clock limit)
    TIMEOUT = "timeout"
    #: the sandbox worker died under the call (or the launcher under a program)
    CRASH = "crash"
    # a whole program's run (stdin to stdout)
    #: it ended with exit code 0 within the limits; its output is ``stdout``
    OK = "ok"
    #: a non-zero exit code or a signal (other than the limits' own)
    RUNTIME_ERROR = "runtime-error"
    #: past the memory limit (how it is recognised: docs/programs.md)
    MEMORY_LIMIT = "memory-limit"
    #: it wrote more than the output cap
    OUTPUT_LIMIT = "output-limit"


#: the kinds of a whole program's outcome
PROGRAM_OUTCOMES = frozenset(
    {OutcomeKind.OK, OutcomeKind.RUNTIME_ERROR, OutcomeKind.TIMEOUT, OutcomeKind.MEMORY_LIMIT, OutcomeKind.OUTPUT_LIMIT}
)


@dataclass(frozen=True)
class ExceptionInfo:
    #: qualified type name, e.g. ``ValueError`` or ``mymod.ParseError``
    type_name: str
    message: str
    #: names of the exception's base classes, most derived first (for "same family" policies)
    mro: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.type_name}: {self.message}" if self.message else self.type_name


@dataclass(frozen=True)
class Outcome:
    """What one implementation did on one input."""

    kind: OutcomeKind
    #: the return value, encoded (RETURNED only)
    value: Encoded = None
    #: the exception (RAISED only)
    exception: ExceptionInfo | None = None
    #: the arguments after the call, encoded (to compare argument mutation)
    args_after: Encoded = None
    #: what the call wrote to stdout (capped)
    stdout: str = ""
    #: for TIMEOUT and CRASH: what happened, e.g. "killed by signal SIGSEGV", "exceeded 2.0 s"
    detail: str = ""
    seconds: float = 0.0
    # -- whole programs ---------------------------------------------------------------------
    #: the exit code, when the program exited (None: killed by a signal, or a function's call)
    exit_code: int | None = None
    #: the signal that ended it ("SIGSEGV"), if one did
    signal: str | None = None
    #: the end of what it wrote on stderr (bounded; shown in reports, never compared)
    stderr: str = ""
    #: peak resident memory in KiB (wait4's rusage), when known
    memory_kb: int | None = None
    #: with a checker (``--checker``): the index of the program whose output the checker accepted
    #: this one against (the representative of its class); None without a checker
    accepted_with: int | None = None
    #: TIMEOUT only: the call ran past the escalated limit (``Limits.hang_factor`` times the slowest
    #: time another implementation needed on the input, at least ``Limits.timeout``) where others
    #: finished: a hang, which the default timeout rule counts as a behaviour of its own
    hang: bool = False

    def describe(self) -> str:
        """A one-line, human-readable account (used in reports and JSON ``value``)."""
        from divergent.values import render

        if self.kind is OutcomeKind.RETURNED:
            return render(self.value)
        if self.kind is OutcomeKind.RAISED:
            assert self.exception is not None
            return str(self.exception)
        if self.kind is OutcomeKind.OK:
            return _preview(self.stdout)
        return self.detail or self.kind.value

    @property
    def status(self) -> str:
        """How a program's run ended: "exit 0", "exit 3", "signal SIGSEGV" (empty for a call)."""
        if self.signal:
            return f"signal {self.signal}"
        if self.exit_code is not None:
            return f"exit {self.exit_code}"
        return ""


def _preview(text: str, limit: int = 200) -> str:
    """A program's output on one line, quoted and cut."""
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)


@dataclass(frozen=True)
class Budget:
    """How long a search may go on: wall seconds and/or executions (whichever runs out first)."""

    seconds: float | None = 20.0
    executions: int | None = None

    def __post_init__(self) -> None:
        from divergent.errors import InvalidArgument

        if self.seconds is not None and self.seconds <= 0:
            raise InvalidArgument(f"budget seconds={self.seconds!r} must be > 0")
        if self.executions is not None and self.executions <= 0:
            raise InvalidArgument(f"budget executions={self.executions!r} must be > 0")
        if self.seconds is None and self.executions is None:
            raise InvalidArgument("a budget needs seconds or executions (or both)")


@dataclass(frozen=True)
class Observation:
    """An input with the outcome of every implementation on it, fed back to the engines."""

    input: AnyInput
    outcomes: tuple[Outcome, ...]
    #: the partition of implementation indices into behaviour classes on this input
    classes: tuple[tuple[int, ...], ...]
    #: implementations whose outcome does not count toward a difference (by default: timeouts
    #: where others finished, since a slow implementation is not a different one)
    inconclusive: tuple[int, ...] = ()

    @property
    def conclusive_classes(self) -> tuple[tuple[int, ...], ...]:
        """The classes with at least one conclusive member."""
        if not self.inconclusive:
            return self.classes
        return tuple(c for c in self.classes if any(i not in self.inconclusive for i in c))

    @property
    def divergent(self) -> bool:
        return len(self.conclusive_classes) > 1


@dataclass(frozen=True)
class Counterexample:
    """A confirmed input on which the implementations behave differently."""

    input: AnyInput
    outcomes: tuple[Outcome, ...]
    classes: tuple[tuple[int, ...], ...]
    #: the engine that first found a divergence (before shrinking)
    engine: str
    #: the input as the engine found it, before shrinking
    original: AnyInput
    #: the function name to show the call with
    function_name: str = "f"
    #: the spurious-counterexample filter's verdict, when a filter was configured
    filter: FilterVerdict | None = None
    #: the inputs shrinking moved through, in order, after ``original`` and ending with ``input``
    #: (empty when the found input was not shrunk)
    shrink_steps: tuple[AnyInput, ...] = ()

    @property
    def call(self) -> str:
        return self.input.call(self.function_name)


class FilterDecision(enum.StrEnum):
    """What the spurious-counterexample filter decided about a difference."""

    IMPORTANT = "IMPORTANT"
    IRRELEVANT = "IRRELEVANT"
    #: the model answered, but without a readable decision (counts as relevant: nothing is dropped
    #: because a model rambled)
    UNPARSED = "UNPARSED"
    #: the call failed (endpoint down, cache miss in replay mode...); counts as relevant
    UNJUDGED = "UNJUDGED"


@dataclass(frozen=True)
class FilterVerdict:
    """The filter's judgement of one confirmed difference (ProbeGen, Sec. 3.1 and Appx. C)."""

    #: False only when the model read as IRRELEVANT: the difference does not count
    relevant: bool
    #: the model's short reason (or why there is no verdict)
    rationale: str
    differences: FilterDecision
    #: the model's whole answer (or the error, when the call failed)
    raw: str = ""
    model: str = ""
    #: what the call cost: ``divergent.llm.chat.Usage.as_dict()`` of this one call
    usage: Mapping[str, float | int] = field(default_factory=dict)


class Verdict(enum.StrEnum):
    DIVERGENT = "divergent"
    NO_DIFFERENCE_FOUND = "no-difference-found"
    #: the symbolic engine explored every path of the implementations without a difference, for
    #: types and operations it models exactly (see :class:`Proof` for what was proven)
    PROVEN_EQUIVALENT = "proven-equivalent"
    #: no difference, but the search judged fewer valid inputs than its floor (``--min-inputs``)
    #: and neither a proof nor the whole input space backs it: too few to say the programs agree
    TOO_FEW_INPUTS = "too-few-inputs"
    #: every valid input of a finite space was listed, run on every implementation and judged, and
    #: none differed (``Report.space`` says which space and how many)
    EQUIVALENT_ON_ALL_INPUTS = "equivalent-on-all-inputs"
    ERROR = "error"


@dataclass(frozen=True)
class SpaceJudged:
    """A finite input space judged whole, what ``Verdict.EQUIVALENT_ON_ALL_INPUTS`` rests on: every
    input of it was listed (``listed``), the valid ones (``inputs``: N) each ran on every
    implementation and were compared, none differed, none was left inconclusive."""

    #: what the space is ("all 45 inputs the statement's format allows: a:int[1,9] b:int[a+1,10]")
    description: str
    #: the valid inputs judged
    inputs: int
    #: the inputs listed (valid or not: the validator or the format rejected the others)
    listed: int
    #: what says an input is valid: "statement", "input format", "validator", "examples' shape", "preconditions"
    judge: str = ""

    def to_json(self) -> dict[str, object]:
        return {"description": self.description, "inputs": self.inputs, "listed": self.listed, "judge": self.judge}


class ExitReason(enum.StrEnum):
    FOUND = "found"  # a confirmed counterexample
    PROVEN = "proven"  # the implementations were proven equivalent
    BUDGET_SECONDS = "budget-seconds"
    BUDGET_EXECUTIONS = "budget-executions"
    EXHAUSTED = "exhausted"  # every engine ran out of new inputs
    INTERRUPTED = "interrupted"
    ERROR = "error"


@dataclass(frozen=True)
class EngineStats:
    name: str
    inputs: int = 0
    executions: int = 0
    seconds: float = 0.0
    #: its inputs that were never run: a precondition or the validator rejected them
    rejected: int = 0
    #: distinct behaviour fingerprints this engine's inputs revealed first
    novel: int = 0
    divergences: int = 0
    #: why the engine stopped early, if it did ("exhausted: ...", "unsupported: ...", "failed: ...")
    stopped: str = ""
    #: what the engine explored on its own beyond its inputs ("CrossHair: 412 paths in 3.1 s"), or ""
    explored: str = ""
    #: distinct behaviours among this engine's own inputs (first revealed by it or not)
    behaviours: int = 0
    #: this engine's inputs since it last revealed a behaviour new to the search (a long run: stuck)
    since_novel: int = 0
    #: the longest such run of the search, and how many seconds of its turns it lasted
    longest_stale: int = 0
    longest_stale_seconds: float = 0.0
    #: times the scheduler restarted it (fresh seed, fresh parents) after it stopped finding new behaviours
    restarts: int = 0


@dataclass(frozen=True)
class TimelinePoint:
    """Every engine's cumulative counts at one moment of a search (the engines-over-time chart)."""

    seconds: float
    engines: tuple[EngineStats, ...]


@dataclass(frozen=True)
class Proof:
    """What a proof of equivalence covers: which engine proved it, over how many paths, and the
    limits of the claim (the policy it holds under, the inputs it covers)."""

    engine: str
    #: execution paths explored, each a set of inputs (symbolic values) treated alike
    paths: int
    #: the claim's limits, one sentence each (shown with the verdict)
    limits: tuple[str, ...] = ()


@dataclass(frozen=True)
class Split:
    """One refinement of a partition: ``input`` separated ``classes`` that were one before."""

    input: AnyInput
    classes: tuple[tuple[int, ...], ...]
    outcomes: tuple[Outcome, ...]
    engine: str
    #: the spurious-counterexample filter's verdict, when a filter was configured
    filter: FilterVerdict | None = None


@dataclass(frozen=True)
class Report:
    """The result of ``check`` (and the base of ``cluster``'s result)."""

    verdict: Verdict
    implementations: tuple[str, ...]
    counterexample: Counterexample | None
    #: partition of implementation indices into behaviour classes
    classes: tuple[tuple[int, ...], ...]
    #: the confirmed inputs that split the implementations, in the order found
    splits: tuple[Split, ...]
    seconds: float
    executions: int
    inputs: int
    engines: tuple[EngineStats, ...]
    exit_reason: ExitReason
    #: the sandbox level the run had, e.g. "bubblewrap" (see docs/sandbox.md)
    isolation: str
    policy: str
    seed: int
    #: warnings and facts a user must see (nondeterminism, engines that could not run, fallbacks)
    notes: tuple[str, ...] = ()
    #: inputs on which some implementation was not deterministic (reported, never claimed)
    nondeterministic: tuple[AnyInput, ...] = ()
    error: str = ""
    #: confirmed differences the spurious-counterexample filter judged irrelevant (each with its
    #: verdict): reported and stored, never counted as a difference
    filtered_out: tuple[Counterexample, ...] = ()
    #: the language model's name and usage in this run ({"model", "calls", "cached_calls",
    #: "prompt_tokens", "completion_tokens", "cost", "seconds", "retries"}), None without a model
    llm: Mapping[str, Any] | None = None
    #: the engines' cumulative counts over the search, oldest first (thinned to a few hundred points)
    timeline: tuple[TimelinePoint, ...] = ()
    #: inputs never run because a precondition (annotations, ``require``) or the whole programs'
    #: validator rejected them (the notes say the same for people, with the validator's first reason)
    rejected: int = 0
    #: with the verdict ``proven-equivalent``: what was proven and the limits of the claim
    proof: Proof | None = None
    #: what was inferred about the inputs from the code, per parameter (regexes, date formats,
    #: literals, keys, grammars: ``divergent.structure``); None when nothing was
    inferred_inputs: Mapping[str, Any] | None = None
    #: the kind of the programs compared (a name of :data:`divergent.kinds.registry.KINDS`): it says
    #: how the report's inputs and outcomes are written
    kind: str = "python-function"
    #: with the verdict ``equivalent-on-all-inputs``: the finite space judged whole
    space: SpaceJudged | None = None
    #: why the verdict, in words (:mod:`divergent.search.verdict`): what backs it, or for
    #: ``too-few-inputs`` what kept the search from judging enough inputs
    reason: str = ""
    #: the floor of judged inputs the verdict was held to (``--min-inputs``)
    min_inputs: int = 0
    #: the inputs that back the verdict: those run (``inputs``) but those whose difference the
    #: warm mode showed and the reference mode never settled (-1: as many as ``inputs``)
    judged: int = -1
    #: what backs the verdict: "difference", "proof", "space", "exhausted", "inputs", or "none"
    evidence: str = ""

    @property
    def divergent(self) -> bool:
        return self.verdict is Verdict.DIVERGENT

    @property
    def exhaustive(self) -> bool:
        """Every valid input of a finite space was judged, with no difference (``space``)."""
        return self.verdict is Verdict.EQUIVALENT_ON_ALL_INPUTS

    @property
    def proven(self) -> bool:
        return self.verdict is Verdict.PROVEN_EQUIVALENT

    @property
    def too_few_inputs(self) -> bool:
        return self.verdict is Verdict.TOO_FEW_INPUTS

    @property
    def judged_inputs(self) -> int:
        """The inputs that back the verdict (:attr:`judged`, or :attr:`inputs` when not told)."""
        return self.inputs if self.judged < 0 else self.judged
