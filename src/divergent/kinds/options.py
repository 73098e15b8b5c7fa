"""The options of a search, defined once: :class:`SearchOptions`.

``check``, ``cluster``, the semantic clustering, the benchmarks and the CLI all build one
:class:`SearchOptions`; its field defaults are the only place the defaults live (the CLI reads its
option defaults from :data:`DEFAULT_OPTIONS`). Python callers may pass the fields as keywords::

    divergent.check(["a.py:f", "b.py:f"], budget=5, engines="seeds,mutation")
    divergent.check(["a.py:f", "b.py:f"], options=SearchOptions(budget=Budget(seconds=5)))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from divergent.comparison import Comparison
from divergent.engines.registry import ENGINES, parse_engine_list
from divergent.engines.settings import EngineSettings, ProbeGenSettings
from divergent.errors import InvalidArgument
from divergent.kinds.program_options import PROGRAM_OPTION_NAMES, ProgramOptions
from divergent.policy import DEFAULT_POLICY
from divergent.programs import Program
from divergent.records import AnyInput, Budget, EngineStats
from divergent.sandbox.limits import Limits

if TYPE_CHECKING:
    from divergent.llm.chat import ChatModel

#: what names an implementation: a spec string (``a.py:f``, ``pkg.mod:f``, ``HEAD~1:a.py:f``, a
#: whole program ``a.cpp``, ``exec:PATH``), a live function, or a loaded program
ImplementationSpec = str | Program | Callable[..., Any]
#: a seed: a file of calls, an :class:`~divergent.records.Input`, or a tuple of arguments (for whole
#: programs: a file holding one input, or a :class:`~divergent.records.TextInput`)
SeedSpec = str | Path | AnyInput | tuple
#: the floor of judged inputs behind "no difference" that every kind has today (docs/cli.md says why)
DEFAULT_MIN_INPUTS = 100


@dataclass(frozen=True)
class Progress:
    """A snapshot for live displays, passed to the ``progress`` callback after every batch."""

    seconds: float
    budget_seconds: float | None
    executions: int
    inputs: int
    engines: tuple[EngineStats, ...]
    phase: str = "searching"


@dataclass(frozen=True)
class SearchOptions:
    """Everything a search may be told besides the implementations."""

    #: the function to compare when a spec names a file without one
    function: str | None = None
    budget: Budget = field(default_factory=Budget)
    #: None: the default portfolio; "all": every engine; else the engines named (a tuple, or
    #: "seeds,mutation"): then an engine that cannot start is an error, not a note
    engines: tuple[str, ...] | str | None = None
    #: seed inputs: files of calls, Inputs, argument tuples (one, or a sequence of them)
    seeds: tuple[SeedSpec, ...] = ()
    #: a precondition on inputs: a Python expression over the parameters, or a predicate
    require: str | Callable[..., bool] | None = None
    #: regular expressions the inputs of a parameter follow, as ``ARG=PATTERN`` (``--input-regex``)
    input_regexes: tuple[str, ...] = ()
    #: how outcomes are compared: the equality policy of Python values (its timeout rule holds for
    #: every kind), or another comparison (a kind whose outcomes it does not fit builds its own from
    #: its options, keeping the timeout rule)
    comparison: Comparison = DEFAULT_POLICY
    limits: Limits = field(default_factory=Limits)
    #: the sandbox level ("bubblewrap", "unshare", "rlimits"); None: the strongest available
    isolation: str | None = None
    #: the run's random seed: every engine derives its randomness from it
    seed: int = 0
    #: the language model of the LLM engines (``divergent.llm.chat.ChatModel``); None: no model
    llm: ChatModel | None = None
    #: the task description given to the LLM engines (and to the filter, by its caller)
    spec: str | None = None
    #: judges every confirmed difference before it counts (``divergent.spurious.SpuriousFilter``)
    spurious_filter: Any = None
    engine_settings: EngineSettings = field(default_factory=EngineSettings)
    #: called with a :class:`Progress` after every batch (live displays)
    progress: Callable[[Progress], None] | None = None
    #: whole programs (stdin to stdout): examples, validator, generator, checker, output mode,
    #: limits, build flags (its fields are also accepted as keywords: ``stdin=True``, ``examples=``)
    programs: ProgramOptions = field(default_factory=ProgramOptions)
    #: the fewest judged inputs that back "no difference" (verdict ``too-few-inputs`` below it, unless a
    #: proof or the whole input space backs it: :mod:`divergent.search.verdict`); None: the kind's own
    #: floor (:attr:`divergent.kinds.base.ProgramKind.min_inputs`); 0: none
    min_inputs: int | None = None
    #: when the budget's seconds began (``time.monotonic()``), for one search; None: when the search
    #: starts. The CLI passes its own start, so start-up counts against ``--budget``
    started: float | None = None

    def __post_init__(self) -> None:
        budget: Any = self.budget
        if isinstance(budget, int | float) and not isinstance(budget, bool):
            object.__setattr__(self, "budget", Budget(seconds=float(budget)))
        elif not isinstance(budget, Budget):
            raise InvalidArgument(f"budget={budget!r}: expected seconds or a Budget")
        engines: Any = self.engines
        if isinstance(engines, str) and engines.strip() != "all":
            object.__setattr__(self, "engines", parse_engine_list(engines))
        elif engines is not None and not isinstance(engines, str):
            names = tuple(engines)
            for name in names:
                if name not in ENGINES:
                    raise InvalidArgument(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")
            object.__setattr__(self, "engines", names)
        if isinstance(self.input_regexes, str):
            object.__setattr__(self, "input_regexes", (self.input_regexes,))
        elif isinstance(self.input_regexes, dict):
            object.__setattr__(self, "input_regexes", tuple(f"{k}={v}" for k, v in self.input_regexes.items()))
        if self.min_inputs is not None and (isinstance(self.min_inputs, bool) or self.min_inputs < 0):
            raise InvalidArgument(f"min_inputs={self.min_inputs!r} must be a number at least 0")
        seeds: Any = self.seeds
        if seeds is None:
            object.__setattr__(self, "seeds", ())
        elif isinstance(seeds, str | Path | AnyInput):
            object.__setattr__(self, "seeds", (seeds,))
        else:
            object.__setattr__(self, "seeds", tuple(seeds))

    @property
    def engines_requested(self) -> bool:
        """Whether the caller chose the engines (then one that cannot start is an error)."""
        return isinstance(self.engines, tuple)

    @property
    def probegen(self) -> ProbeGenSettings:
        return self.engine_settings.probegen

    def with_(self, **changes: Any) -> SearchOptions:
        """A copy with some fields changed (``probegen=`` changes ProbeGen's settings)."""
        return SearchOptions.of(self, **changes)

    @classmethod
    def of(cls, options: SearchOptions | None = None, **changes: Any) -> SearchOptions:
        """``options`` (or the defaults) with ``changes`` applied; an unknown name is an input error.

        ``probegen`` ({"strategy", "k", "d"} or :class:`ProbeGenSettings`) is accepted as a shortcut for
        ``engine_settings.probegen``, the fields of :class:`ProgramOptions` (``stdin``,
        ``examples``, ``validator``, ...) for ``programs``, and ``policy`` (the name of divergent 0.1,
        which reproducing tests written by it still use) for ``comparison``. ``rel_tol`` and
        ``abs_tol`` are the tolerances of numbers for every kind: the comparison's and those of
        whole programs' ``float`` output mode. ``timeout`` (seconds) is ``limits.timeout``: a
        function call's limit, and whole programs' CPU limit unless ``time_limit`` says otherwise."""
        base = options if options is not None else DEFAULT_OPTIONS
        if "policy" in changes:
            changes["comparison"] = changes.pop("policy")
        if "rel_tol" in changes or "abs_tol" in changes:
            # the tolerances of numbers, for every kind: the comparison's and whole programs' float mode
            rel_tol, abs_tol = changes.get("rel_tol"), changes.get("abs_tol")
            changes["comparison"] = changes.get("comparison", base.comparison).with_tolerances(rel_tol, abs_tol)
        if "timeout" in changes:
            changes["limits"] = replace(changes.get("limits", base.limits), timeout=changes.pop("timeout"))
        program_changes = {name: changes.pop(name) for name in list(changes) if name in PROGRAM_OPTION_NAMES}
        if program_changes:
            changes["programs"] = replace(changes.get("programs", base.programs), **program_changes)
        if "probegen" in changes:
            settings = changes.get("engine_settings", base.engine_settings)
            changes["engine_settings"] = replace(settings, probegen=ProbeGenSettings.of(changes.pop("probegen")))
        unknown = set(changes) - _FIELD_NAMES
        if unknown:
            choices = ", ".join(sorted(_FIELD_NAMES | PROGRAM_OPTION_NAMES | {"timeout"}))
            raise InvalidArgument(f"unknown search option(s) {', '.join(sorted(unknown))}; choose from {choices}")
        return replace(base, **changes) if changes else base


_FIELD_NAMES = frozenset(f.name for f in fields(SearchOptions))
#: the defaults, in one place (the CLI reads its option defaults from here)
DEFAULT_OPTIONS = SearchOptions()
