"""The options every searching command shares (check, cluster): their typer declarations, the
:class:`SearchArguments` they are gathered into, and how those become the Python API's
:class:`~divergent.search.SearchOptions` (whose fields hold the defaults the options show)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from divergent.cli.app import input_errors, live_progress, process_started, stderr_console
from divergent.cli.llm_options import ApiKeyEnvOpt, BaseUrlOpt, LLMConfigOpt, ModelOpt, ReplayOpt
from divergent.engines.settings import ProbeGenSettings
from divergent.errors import InvalidArgument
from divergent.kinds.program_options import DEFAULT_PROGRAM_OPTIONS
from divergent.policy import DEFAULT_POLICY
from divergent.records import Budget

if TYPE_CHECKING:
    from divergent.llm.client import LLMClient
from divergent.sandbox.limits import Limits

# The option defaults come from the records that define them (divergent.search.SearchOptions's fields).
_BUDGET = Budget()
_LIMITS = Limits()
_PROBEGEN = ProbeGenSettings()
_PROGRAMS = DEFAULT_PROGRAM_OPTIONS

# Options shared by the commands that search (kept in one place so check and cluster agree).
FunctionOpt = Annotated[str | None, typer.Option("--function", "-f", help="Function name, for specs that name none.")]
BudgetOpt = Annotated[float, typer.Option("--budget", "-b", help="Wall seconds for the search.", min=0.01)]
ExecutionsOpt = Annotated[
    int | None, typer.Option("--executions", help="Also stop after this many executions.", min=1)
]
EnginesOpt = Annotated[
    str | None, typer.Option("--engines", "-e", help="Comma-separated: seeds,mutation,hypothesis,symbolic; llm and randsearch need --model.")
]
SeedsOpt = Annotated[
    list[str] | None, typer.Option("--seeds", help="File of seed inputs (calls, argument tuples or assert lines).")
]
RequireOpt = Annotated[str | None, typer.Option("--require", help="Precondition on inputs, e.g. 'n >= 0'.")]
InputRegexOpt = Annotated[
    list[str] | None,
    typer.Option("--input-regex", help="ARG=PATTERN: inputs of parameter ARG follow this regex (repeatable)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object (the documented contract).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No live display; only the result.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed: runs are reproducible for a seed.")]
TimeoutOpt = Annotated[
    float, typer.Option("--timeout", help="Seconds a call may run before it is a timeout (and the least a hang "
                        "needs); the search starts with far smaller limits and re-runs slow inputs.", min=0.001)
]
MemoryOpt = Annotated[int, typer.Option("--memory", help="Address-space limit per worker, MiB.", min=64)]
IsolationOpt = Annotated[
    str | None, typer.Option("--isolation", help="auto, bubblewrap, unshare or rlimits (see docs/sandbox.md).")
]
RelTolOpt = Annotated[float, typer.Option("--rel-tol", help="Relative tolerance for floats (math.isclose).")]
AbsTolOpt = Annotated[float, typer.Option("--abs-tol", help="Absolute tolerance for floats.")]
NanOpt = Annotated[bool, typer.Option("--nan-equal/--nan-unequal", help="Whether NaN equals NaN.")]
ExceptionsOpt = Annotated[
    str, typer.Option("--exceptions", help="When exceptions are equal: type, any, or type-and-message.")
]
UnorderedOpt = Annotated[bool, typer.Option("--unordered", help="Compare lists and tuples ignoring order.")]
MutationOpt = Annotated[
    bool, typer.Option("--compare-mutation/--ignore-mutation", help="Compare arguments after the call.")
]
StdoutOpt = Annotated[bool, typer.Option("--compare-stdout", help="Also compare what the calls print.")]
IterOpt = Annotated[int, typer.Option("--iterable-limit", help="Compare this many items of iterators.", min=0)]
ListTupleOpt = Annotated[bool, typer.Option("--list-equals-tuple", help="Treat [1, 2] and (1, 2) as equal.")]
CompareOpt = Annotated[
    str | None,
    typer.Option("--compare", help="Your own comparison of return values: file.py:function or module:function."),
]
TimeoutsOpt = Annotated[
    str,
    typer.Option("--timeouts", help="A timeout where others finish: hang (default: a difference once it runs past "
                 "100x the others' time, at least --timeout), inconclusive (never) or differ (always)."),
]
_PROGRAM_PANEL = "Whole programs (stdin to stdout)"
StdinFlagOpt = Annotated[
    bool, typer.Option("--stdin", help="Compare whole programs reading stdin (implied by .c/.cpp/.java files and "
                       "exec:PATH); a .py file is then a script.", rich_help_panel=_PROGRAM_PANEL)
]
ExampleOpt = Annotated[
    list[str] | None, typer.Option("--example", help="A file holding one input (repeatable).",
                                   rich_help_panel=_PROGRAM_PANEL)
]
InputsDirOpt = Annotated[
    str | None, typer.Option("--inputs", help="A directory of test files (each one input).", rich_help_panel=_PROGRAM_PANEL)
]
GeneratorOpt = Annotated[
    str | None, typer.Option("--generator", help="A program printing one input; its seed is argv[1].",
                             rich_help_panel=_PROGRAM_PANEL)
]
ValidatorOpt = Annotated[
    str | None, typer.Option("--validator", help="A program reading an input on stdin; exit 0 = valid.",
                             rich_help_panel=_PROGRAM_PANEL)
]
CheckerOpt = Annotated[
    str | None, typer.Option("--checker", help="testlib checker: 'checker input output answer', exit 0 = accepted.",
                             rich_help_panel=_PROGRAM_PANEL)
]
OutputModeOpt = Annotated[
    str, typer.Option("--output", help="How outputs compare: tokens, exact, lines or float.", rich_help_panel=_PROGRAM_PANEL)
]
FloatTolOpt = Annotated[
    float, typer.Option("--float-tol", help="--output float: absolute or relative tolerance.", min=0.0,
                        rich_help_panel=_PROGRAM_PANEL)
]
TimeLimitOpt = Annotated[
    float | None, typer.Option("--time-limit", help="CPU seconds per run (wall clock: twice); default: --timeout.",
                               min=0.001, rich_help_panel=_PROGRAM_PANEL)
]
MemoryLimitOpt = Annotated[
    int, typer.Option("--memory-limit", help="MiB of memory per run.", min=8, rich_help_panel=_PROGRAM_PANEL)
]
CflagsOpt = Annotated[
    str | None, typer.Option("--cflags", help="C compiler flags (default: -O2 -std=c17 -DONLINE_JUDGE).",
                             rich_help_panel=_PROGRAM_PANEL)
]
CxxflagsOpt = Annotated[
    str | None, typer.Option("--cxxflags", help="C++ compiler flags (default: -O2 -std=c++17 -DONLINE_JUDGE).",
                             rich_help_panel=_PROGRAM_PANEL)
]
StdOpt = Annotated[
    str | None, typer.Option("--std", help="The C++ standard, e.g. c++20.", rich_help_panel=_PROGRAM_PANEL)
]
BuildCacheOpt = Annotated[
    str | None, typer.Option("--build-cache", help="Build cache directory (default: $XDG_CACHE_HOME/divergent/builds).",
                             rich_help_panel=_PROGRAM_PANEL)
]
WithFileOpt = Annotated[
    list[str] | None, typer.Option(
        "--with-file", help="A file (or directory) the programs in its directory may read besides their own "
        "source: helper modules, other classes, headers (repeatable). A program sees nothing else of its directory.",
        rich_help_panel=_PROGRAM_PANEL)
]
FreshInterpreterOpt = Annotated[
    bool, typer.Option("--fresh-interpreter", help="Run every Python script in a new interpreter (slower).",
                       rich_help_panel=_PROGRAM_PANEL)
]
HtmlOpt = Annotated[
    Path | None, typer.Option("--html", help="Also write a self-contained HTML report (charts, no network) here.")
]
KeepOpt = Annotated[
    bool, typer.Option("--store", help="Keep the report in the store: `divergent report RUN` shows it again.")
]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="The store for --store (default: $DIVERGENT_HOME or ~/.local/share/divergent); "
                 "implies --store."),
]
_LLM_PANEL = "Language model"
SpecOpt = Annotated[
    Path | None,
    typer.Option("--spec", help="Task description (text or markdown) for the LLM engine and the filter.",
                 rich_help_panel=_LLM_PANEL),
]
NoFilterOpt = Annotated[
    bool,
    typer.Option("--no-filter", help="Count every difference: no LLM spurious-counterexample filter.",
                 rich_help_panel=_LLM_PANEL),
]
StrategyOpt = Annotated[
    str,
    typer.Option("--probegen-strategy", help="ProbeGen tree: full, top, decreasing, increasing, halving, doubling.",
                 rich_help_panel=_LLM_PANEL),
]
BranchingOpt = Annotated[
    int, typer.Option("-K", help="ProbeGen: samples at the first turn (the strategy's K).", min=1,
                      rich_help_panel=_LLM_PANEL)
]
DepthOpt = Annotated[
    int, typer.Option("-D", help="ProbeGen: turns of feedback (the tree's depth D).", min=1,
                      rich_help_panel=_LLM_PANEL)
]


@dataclass(frozen=True)
class SearchArguments:
    """What the command line said to every searching command (check, cluster); :meth:`to_options`
    turns it into the :class:`divergent.search.SearchOptions` the Python API takes."""

    function: str | None
    budget: float
    executions: int | None
    engines: str | None
    seeds: list[str] | None
    require: str | None
    as_json: bool
    quiet: bool
    seed: int
    timeout: float
    memory: int
    isolation: str | None
    rel_tol: float
    abs_tol: float
    nan_equal: bool
    exceptions: str
    unordered: bool
    compare_mutation: bool
    compare_stdout: bool
    iterable_limit: int
    list_equals_tuple: bool
    timeouts: str
    compare: str | None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    llm_config: Path | None = None
    replay: bool = False
    spec: Path | None = None
    no_filter: bool = False
    probegen_strategy: str = _PROBEGEN.strategy.value
    k: int = _PROBEGEN.k
    d: int = _PROBEGEN.d
    stdin: bool = _PROGRAMS.stdin
    example: list[str] | None = None
    inputs: str | None = None
    generator: str | None = None
    validator: str | None = None
    checker: str | None = None
    output: str = _PROGRAMS.output
    float_tol: float = _PROGRAMS.float_tol
    time_limit: float | None = _PROGRAMS.time_limit
    memory_limit: int = _PROGRAMS.memory_limit
    cflags: str | None = None
    cxxflags: str | None = None
    std: str | None = _PROGRAMS.std
    build_cache: str | None = _PROGRAMS.build_cache
    fresh_interpreter: bool = _PROGRAMS.fresh_interpreter
    with_file: list[str] | None = None
    html: Path | None = None
    store: bool = False
    db: Path | None = None
    input_regex: list[str] | None = None

    def program_options(self) -> Any:
        from divergent.kinds.program_options import ProgramOptions

        return ProgramOptions(
            stdin=self.stdin, examples=tuple(self.example or ()), inputs_dir=self.inputs, generator=self.generator,
            validator=self.validator, checker=self.checker, output=self.output, float_tol=self.float_tol,
            time_limit=self.time_limit, memory_limit=self.memory_limit, cflags=self.cflags,  # type: ignore[arg-type]
            cxxflags=self.cxxflags, std=self.std, build_cache=self.build_cache,  # type: ignore[arg-type]
            fresh_interpreter=self.fresh_interpreter, with_files=tuple(self.with_file or ()),
        )

    def to_options(self, progress: Callable[..., None] | None = None) -> Any:
        """The search options; with ``--model`` they hold an open model client (the caller closes
        ``options.llm`` when done), the task description and the spurious filter (unless
        ``--no-filter``)."""
        from divergent.cli.llm_options import chat_model_from_options
        from divergent.engines.settings import EngineSettings, ProbeGenSettings
        from divergent.records import Budget
        from divergent.sandbox.limits import Limits
        from divergent.search import SearchOptions

        # A bad strategy, K or D is an input error before anything starts.
        settings = EngineSettings(probegen=ProbeGenSettings(strategy=self.probegen_strategy, k=self.k, d=self.d))
        spec = None
        if self.spec is not None:
            try:
                spec = self.spec.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise InvalidArgument(f"--spec {self.spec}: cannot read it ({error})") from None
        options = SearchOptions(
            function=self.function,
            budget=Budget(seconds=self.budget, executions=self.executions),
            engines=self.engines,
            seeds=tuple(self.seeds or ()),
            require=self.require,
            input_regexes=tuple(self.input_regex or ()),
            comparison=self.comparison(),
            limits=Limits(timeout=self.timeout, memory_mb=self.memory),
            isolation=self.isolation,
            seed=self.seed,
            spec=spec,
            engine_settings=settings,
            progress=progress,
            programs=self.program_options(),
            started=process_started(),
        )
        chat = chat_model_from_options(self.model, self.base_url, self.api_key_env, self.llm_config, self.replay)
        if chat is None:
            return options
        spurious_filter = None
        if not self.no_filter:
            from divergent.spurious import SpuriousFilter

            spurious_filter = SpuriousFilter(chat, spec=spec)
        return options.with_(llm=chat, spurious_filter=spurious_filter)

    def comparison(self) -> Any:
        """The equality policy the options describe (its timeout rule holds for every kind)."""
        from divergent.policy import EqualityPolicy, ExceptionEquality, TimeoutRule

        try:
            timeout_rule = TimeoutRule(self.timeouts)
        except ValueError:
            raise InvalidArgument(
                f"--timeouts {self.timeouts!r}: choose from {', '.join(t.value for t in TimeoutRule)}"
            ) from None
        try:
            exception_rule = ExceptionEquality(self.exceptions)
        except ValueError:
            raise InvalidArgument(
                f"--exceptions {self.exceptions!r}: choose from {', '.join(e.value for e in ExceptionEquality)}"
            ) from None
        return EqualityPolicy(
            rel_tol=self.rel_tol, abs_tol=self.abs_tol, nan_equal=self.nan_equal, exceptions=exception_rule,
            unordered=self.unordered, compare_mutation=self.compare_mutation, compare_stdout=self.compare_stdout,
            iterable_limit=self.iterable_limit, list_equals_tuple=self.list_equals_tuple, timeouts=timeout_rule,
            compare=load_comparison(self.compare) if self.compare else None,
        )


def load_comparison(spec: str) -> Callable[[Any, Any], bool]:
    """The user's own comparison function (trusted: the user's code, like --require), which gets
    the two return values as rebuilt builtins (or their safe encoding for other types)."""
    import importlib
    import importlib.util

    from divergent.errors import InvalidArgument

    target, _, name = spec.rpartition(":")
    if not target or not name:
        raise InvalidArgument(f"--compare {spec!r}: expected file.py:function or module:function")
    try:
        if target.endswith(".py"):
            module_spec = importlib.util.spec_from_file_location("divergent_user_compare", target)
            if module_spec is None or module_spec.loader is None:
                raise InvalidArgument(f"--compare {spec!r}: cannot load {target}")
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except (OSError, ImportError, SyntaxError) as error:
        raise InvalidArgument(f"--compare {spec!r}: {error}") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise InvalidArgument(f"--compare {spec!r}: {target} has no function {name!r}")
    return function


def _shared_search_options(
    function: FunctionOpt = None,
    budget: BudgetOpt = _BUDGET.seconds,
    executions: ExecutionsOpt = _BUDGET.executions,
    engines: EnginesOpt = None,
    seeds: SeedsOpt = None,
    require: RequireOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    seed: SeedOpt = 0,
    timeout: TimeoutOpt = _LIMITS.timeout,
    memory: MemoryOpt = _LIMITS.memory_mb,
    isolation: IsolationOpt = None,
    rel_tol: RelTolOpt = DEFAULT_POLICY.rel_tol,
    abs_tol: AbsTolOpt = DEFAULT_POLICY.abs_tol,
    nan_equal: NanOpt = DEFAULT_POLICY.nan_equal,
    exceptions: ExceptionsOpt = DEFAULT_POLICY.exceptions.value,
    unordered: UnorderedOpt = DEFAULT_POLICY.unordered,
    compare_mutation: MutationOpt = DEFAULT_POLICY.compare_mutation,
    compare_stdout: StdoutOpt = DEFAULT_POLICY.compare_stdout,
    iterable_limit: IterOpt = DEFAULT_POLICY.iterable_limit,
    list_equals_tuple: ListTupleOpt = DEFAULT_POLICY.list_equals_tuple,
    timeouts: TimeoutsOpt = DEFAULT_POLICY.timeouts.value,
    compare: CompareOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: ApiKeyEnvOpt = None,
    llm_config: LLMConfigOpt = None,
    replay: ReplayOpt = False,
    spec: SpecOpt = None,
    no_filter: NoFilterOpt = False,
    probegen_strategy: StrategyOpt = _PROBEGEN.strategy.value,
    k: BranchingOpt = _PROBEGEN.k,
    d: DepthOpt = _PROBEGEN.d,
    stdin: StdinFlagOpt = _PROGRAMS.stdin,
    example: ExampleOpt = None,
    inputs: InputsDirOpt = None,
    generator: GeneratorOpt = None,
    validator: ValidatorOpt = None,
    checker: CheckerOpt = None,
    output: OutputModeOpt = _PROGRAMS.output,
    float_tol: FloatTolOpt = _PROGRAMS.float_tol,
    time_limit: TimeLimitOpt = _PROGRAMS.time_limit,
    memory_limit: MemoryLimitOpt = _PROGRAMS.memory_limit,
    cflags: CflagsOpt = None,
    cxxflags: CxxflagsOpt = None,
    std: StdOpt = _PROGRAMS.std,
    build_cache: BuildCacheOpt = _PROGRAMS.build_cache,
    fresh_interpreter: FreshInterpreterOpt = _PROGRAMS.fresh_interpreter,
    with_file: WithFileOpt = None,
    html: HtmlOpt = None,
    store: KeepOpt = False,
    db: DbOpt = None,
    input_regex: InputRegexOpt = None,
) -> None:
    """The template whose parameters become every searching command's options."""


def with_search_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give a command the shared search options; it receives them as one ``options`` argument."""
    shared = inspect.signature(_shared_search_options, eval_str=True).parameters
    own = [p for name, p in inspect.signature(command, eval_str=True).parameters.items() if name != "options"]

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        options = SearchArguments(**{name: kwargs.pop(name) for name in shared})
        command(options=options, **kwargs)

    parameters = [*own, *shared.values()]
    wrapper.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    del wrapper.__wrapped__  # typer must see the merged signature, not the original
    return wrapper


@dataclass(frozen=True)
class SearchRun:
    """What a searching command ran: the kind of the programs, the programs (loaded once), the
    options, and what ``run`` returned."""

    kind: Any
    programs: tuple[Any, ...]
    options: Any
    result: Any


def run_search(implementations: list[str], arguments: SearchArguments, run: Callable[..., Any]) -> SearchRun:
    """Choose the programs' kind and load them (once), and call ``run(programs, options)`` (check or
    cluster) with the search options and a live progress display; input errors exit 2 the
    contract's way."""
    from divergent.kinds.registry import choose_kind
    from divergent.search import SearchOptions

    quiet = arguments.quiet or arguments.as_json
    with input_errors(arguments.as_json):
        loading = SearchOptions(function=arguments.function, programs=arguments.program_options())
        kind = choose_kind(implementations, loading)
        programs = kind.load(implementations, loading)
        progress, stop_progress = live_progress(stderr_console(quiet), not quiet)
        options = arguments.to_options(progress)
        try:
            result = run(list(programs), options)
            if options.llm is not None:
                result = with_note(result, model_data_note(options.llm))
            return SearchRun(kind=kind, programs=programs, options=options, result=result)
        finally:
            stop_progress()
            if options.llm is not None:
                options.llm.close()


def model_data_note(llm: LLMClient) -> str:
    """What the report says when a model took part: what left the machine, and for where."""
    endpoint = llm.settings.base_url or "the OpenAI API"
    return (f"with --model, the programs' source, inputs and outputs (return values, exceptions, printed "
            f"text) were sent to {endpoint}, and the answers stored in the response cache")


def with_note(result: Any, note: str) -> Any:
    """``result`` (a Report, a Clustering, or a tuple starting with one) with one more note."""
    import dataclasses

    from divergent.clustering import Clustering
    from divergent.records import Report

    if isinstance(result, tuple) and result:
        return (with_note(result[0], note), *result[1:])
    if isinstance(result, Report):
        return dataclasses.replace(result, notes=(*result.notes, note))
    if isinstance(result, Clustering):
        return dataclasses.replace(result, report=with_note(result.report, note))
    return result
