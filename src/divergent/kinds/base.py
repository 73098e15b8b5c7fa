"""The interface of a kind of program: :class:`ProgramKind` (one instance per kind) and
:class:`Subjects` (what a kind sets up for one search over its programs).

Everything that differs between kinds lives behind these two: loading specs into programs (once),
the seeds, the engines that make the kind's inputs, opening a runner, the comparison of outcomes,
shrinking an input, and how inputs and outcomes are written (JSON, text, the reproducing test). The
search, confirmation, shrinking, clustering, the reports and the command line hold a kind and never
ask which one it is, the way Hypothesis' engine knows only a test function and its settings.

A new kind is a module defining a :class:`ProgramKind` subclass (and, when its runs need helpers, a
:class:`Subjects` subclass), and one line in :data:`divergent.kinds.registry.KINDS`.
"""

from __future__ import annotations

import abc
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from divergent.comparison import Comparison
from divergent.engines.base import Engine, EngineContext
from divergent.engines.registry import NEEDS_MODEL, parse_engine_list
from divergent.errors import EngineCannotProceed, InvalidArgument
from divergent.kinds.options import DEFAULT_MIN_INPUTS, SearchOptions
from divergent.programs import Program
from divergent.records import AnyInput, Counterexample, Report
from divergent.report.presentation import Presentation, ReportExtras
from divergent.sandbox.runner import Runner

RecordT = TypeVar("RecordT")


def records_of(programs: Sequence[Program], record: type[RecordT], noun: str) -> list[RecordT]:
    """The programs as the records of one kind (its runner and its reports need them); a program of
    another kind is an input error."""
    found = []
    for program in programs:
        if not isinstance(program, record):
            raise InvalidArgument(f"{program.label!r} is not a {noun}")
        found.append(program)
    return found


class ProgramKind(abc.ABC):
    """One kind of program (Python functions, whole programs reading stdin, ...): stateless, one
    instance per kind, registered in :data:`divergent.kinds.registry.KINDS` under :attr:`name`."""

    #: the name its program records and reports carry
    name: ClassVar[str]
    #: what one program of the kind is called in messages ("Python function", "whole program")
    noun: ClassVar[str]
    #: the engines that make this kind's inputs: name (as ``--engines`` says it) → "module:Class",
    #: in the portfolio's order
    engines: ClassVar[Mapping[str, str]]
    #: how reports write this kind's inputs and outcomes
    presentation: ClassVar[Presentation]
    #: whether ProbeGen's semantic clustering (a model probing pairs, the spurious filter) applies
    semantic_clustering: ClassVar[bool] = False
    #: the default floor of judged inputs behind "no difference" (``--min-inputs``; docs/cli.md says
    #: why): 100 independent inputs miss a difference that one input in 33 shows less than one
    #: time in 20
    min_inputs: ClassVar[int] = DEFAULT_MIN_INPUTS
    #: the option groups of its own that the kind reads besides the shared ones (their names:
    #: ``OptionGroup.name`` in :mod:`divergent.cli.option_groups`, e.g. "functions", "programs");
    #: another kind's group given for it is an input error naming the kinds that read it
    option_groups: ClassVar[frozenset[str]] = frozenset()
    #: the least memory (MiB) one run of the kind can start in: a smaller ``--memory`` is an input error
    least_memory_mb: ClassVar[int] = 64
    #: whether the kind can have a model write a brute-force reference (``--brute-force``:
    #: :meth:`brute_force_reference`)
    brute_force: ClassVar[bool] = False

    # -- choosing the kind ------------------------------------------------------------------------

    def claims(self, spec: object) -> bool:
        """Whether ``spec`` can only be a program of this kind (a loaded record of it, a spec whose
        form says so: a ``.cpp`` file, ``exec:PATH``); the default kind claims nothing."""
        return False

    def asked(self, options: SearchOptions) -> bool:
        """Whether the options ask for this kind when no spec claims one (``--stdin``)."""
        return False

    # -- loading ----------------------------------------------------------------------------------

    @abc.abstractmethod
    def load(self, specs: Sequence[object], options: SearchOptions) -> tuple[Program, ...]:
        """Every spec as a program of this kind, loaded once with the options (a program already
        loaded is taken as it is); repeated labels are numbered apart. Bad specs raise LoadError or
        InvalidArgument before anything runs."""

    @abc.abstractmethod
    def set_up(self, programs: Sequence[Program], options: SearchOptions) -> Subjects:
        """What a search over ``programs`` needs (their comparison, helpers such as a validator,
        built now so a bad one is an input error). The caller closes it."""

    @abc.abstractmethod
    def open_runner(self, programs: Sequence[Program], options: SearchOptions) -> Runner:
        """A started runner of ``programs`` under ``options`` (what a reproducing test needs)."""

    def reference(self, programs: Sequence[Program]) -> tuple[Program, ...]:
        """The programs as the reference mode runs them: a fresh process per run, the mode the
        printed ``reproduce`` commands and the reproducing test use. A difference counts only once
        it holds there (a warm mode may find it: :mod:`divergent.search.confirmation`). Default: the
        programs as they are (their runner already is the reference mode)."""
        return tuple(programs)

    @abc.abstractmethod
    def input_of(self, item: object) -> AnyInput:
        """An input of this kind from what a caller gave (an input, or a plainer form of one)."""

    # -- options and limits -----------------------------------------------------------------------

    def with_memory(self, options: SearchOptions, mib: int) -> SearchOptions:
        """``options`` where one run of the kind may take ``mib`` MiB (the shared ``--memory``).
        Default: the address space of the process that runs a call (``Limits.memory_mb``)."""
        self.check_memory(mib)
        return options.with_(limits=replace(options.limits, memory_mb=mib))

    def check_memory(self, mib: int) -> None:
        if mib < self.least_memory_mb:
            raise InvalidArgument(f"--memory {mib}: a {self.noun}'s run needs at least {self.least_memory_mb} MiB")

    def brute_force_reference(self, programs: Sequence[Program], chat: Any, spec: str | None) -> Program:
        """One more program: a brute-force reference the model ``chat`` writes for ``programs``
        (REFUTE's RandSearch with no trusted reference). A kind that cannot says so, naming the
        kinds that can (an input error)."""
        from divergent.kinds.registry import all_kinds, nouns

        able = nouns([kind for kind in all_kinds() if kind.brute_force])
        raise InvalidArgument(f"--brute-force is for {able or 'no kind of program'}; these are {self.noun}s")

    # -- engines ----------------------------------------------------------------------------------

    def engine_class(self, name: str) -> type[Engine]:
        """The class of engine ``name`` for this kind's inputs; EngineCannotProceed("unsupported")
        when it has none."""
        dotted = self.engines.get(name)
        if dotted is None:
            raise EngineCannotProceed("unsupported", f"{name} makes no inputs for {self.noun}s")
        module_name, _, attribute = dotted.partition(":")
        return getattr(importlib.import_module(module_name), attribute)

    def engine_names(self, options: SearchOptions) -> tuple[str, ...]:
        """The engines a search starts: the named ones, or the default portfolio of the engines this
        kind has (without the engines that need a model when there is none)."""
        if isinstance(options.engines, tuple):
            return options.engines
        names = tuple(name for name in parse_engine_list(options.engines) if name in self.engines)
        if options.llm is None:
            # Without a model the default portfolio is the offline one (no note about LLM engines).
            names = tuple(name for name in names if name not in NEEDS_MODEL)
        return names

    # -- shrinking and reporting ------------------------------------------------------------------

    @abc.abstractmethod
    def shrink(
        self, item: AnyInput, *, still_divergent: Callable[[Sequence[AnyInput]], list[bool]],
        acceptable: Callable[[AnyInput], bool], seconds: float, on_step: Callable[[AnyInput], None],
    ) -> AnyInput:
        """The simplest input reachable from ``item`` by steps that keep ``still_divergent`` true
        (asked in batches) and ``acceptable`` (the preconditions), within ``seconds``."""

    @abc.abstractmethod
    def reproduction(self, cx: Counterexample, programs: Sequence[Program], options: SearchOptions, *,
                     test_dir: Path) -> str:
        """A pytest module that fails while ``programs`` differ on ``cx`` (paths relative to
        ``test_dir``, where it will live)."""

    def extras(self, report: Report, programs: Sequence[Program], options: SearchOptions) -> ReportExtras:
        """What a report shows besides its records (a file holding the input, the commands that
        reproduce the runs); nothing by default."""
        return ReportExtras()

    def __repr__(self) -> str:
        return f"<kind {self.name}>"


class Subjects:
    """The programs of one search and what their kind set up for it: the comparison, the seeds, the
    preconditions, the runner, the helpers. Built by :meth:`ProgramKind.set_up`; the search reads it
    and closes it.

    The defaults fit a kind whose runner takes a per-batch time limit (small, adaptive limits, slow
    inputs re-run longer) and whose inputs need no precondition."""

    #: whether the runner takes a per-batch limit (``Runner.run(timeout=)``): the search then starts
    #: small and adaptive and re-runs slow inputs longer; else each run's limit is fixed when its
    #: runner starts (a judge's time limit) and a longer one needs a runner started with it
    adaptive_limits: ClassVar[bool] = True

    def __init__(self, kind: ProgramKind, programs: Sequence[Program], options: SearchOptions, *,
                 comparison: Comparison, notes: Sequence[str] = ()) -> None:
        if not programs:
            raise InvalidArgument("nothing to compare")
        self.kind = kind
        self.programs = tuple(programs)
        self.options = options
        #: how outcomes are compared (the options' comparison, or the one the kind builds from them)
        self.comparison = comparison
        #: the engines the search starts
        self.engine_names = kind.engine_names(options)
        #: the seed inputs (:meth:`gather_seeds` reads them)
        self.seeds: tuple[AnyInput, ...] = ()
        #: what the report must say about the set-up (seeds dropped, ...)
        self.notes: list[str] = list(notes)

    @property
    def time_limit(self) -> float:
        """The seconds a run may take (the fixed limit when :attr:`adaptive_limits` is False)."""
        return self.options.limits.timeout

    def open_runner(self, timeout_factor: float = 1.0, *, reference: bool = False) -> Runner:
        """A started runner of the programs (``timeout_factor`` times the usual limits; ``reference``:
        in the reference mode, :meth:`ProgramKind.reference`)."""
        return self.kind.open_runner(self.runnable(reference), self.scaled_options(timeout_factor))

    def runnable(self, reference: bool = False) -> tuple[Program, ...]:
        """The programs as the search runs them, or as the reference mode does."""
        return self.kind.reference(self.programs) if reference else self.programs

    @property
    def warm(self) -> bool:
        """Whether the search's runner runs the programs otherwise than the reference mode (a warm
        interpreter or JVM): then a difference it sees must hold in the reference mode to count."""
        return self.runnable(reference=True) != self.programs

    def scaled_options(self, timeout_factor: float) -> SearchOptions:
        if timeout_factor == 1.0:
            return self.options
        limits = self.options.limits
        return self.options.with_(limits=replace(limits, timeout=limits.timeout * timeout_factor))

    def gather_seeds(self) -> None:
        """Read the seed inputs into :attr:`seeds` (run while the runner starts); none by default."""

    def acceptable(self, item: AnyInput) -> bool:
        """Whether ``item`` meets the preconditions (checked before it runs); all do by default."""
        return True

    def admit(self, items: Sequence[AnyInput]) -> list[bool]:
        """Which inputs of a batch may run (a validator's verdicts); all by default."""
        return [True] * len(items)

    def claimable(self, item: AnyInput) -> str | None:
        """Why a difference on ``item`` may not be claimed though it ran (it lies outside what the
        problem is known to allow: whole programs without a validator stay within their examples'
        shape), or None when it may. Such a difference is reported apart and the search goes on."""
        return None

    def rejected(self) -> int:
        """Inputs :meth:`admit` refused during the search."""
        return 0

    def report_notes(self, runner: Runner) -> list[str]:
        """What the report must say about the helpers and the runner at the end."""
        return list(runner.notes)

    @property
    def input_floor(self) -> int:
        """A search that judged fewer valid inputs than this found too few to say "no difference"
        (``Verdict.TOO_FEW_INPUTS``; :mod:`divergent.search.verdict`): ``--min-inputs``, else the
        kind's own floor; 0: no floor."""
        floor = self.options.min_inputs
        return self.kind.min_inputs if floor is None else floor

    def engine_context(self, **shared: Any) -> EngineContext:
        """The context the kind's engines get: what every engine may know (``shared``: the
        fields of :class:`~divergent.engines.base.EngineContext`) and what the kind's own engines
        need (a subclass of it)."""
        return EngineContext(**shared)

    def inferred_inputs(self) -> Mapping[str, Any] | None:
        """What was inferred about the inputs, for the report (``--json``: ``inferred_inputs``)."""
        return None

    def close(self) -> None:
        """End the helpers' processes."""
