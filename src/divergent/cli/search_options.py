"""The options of the searching commands (check, cluster): the groups they take
(:class:`SearchFlags`, each group declaring its own flags: :mod:`divergent.cli.option_groups`), and
how they become the Python API's :class:`~divergent.kinds.options.SearchOptions` once the programs' kind
is known (:func:`run_search`).

The groups: the search (:mod:`~divergent.cli.search_groups`: budget, seeds, engines), how outcomes
compare whatever the kind, the limits and the sandbox; the group of Python functions
(:mod:`~divergent.cli.function_group`); the group of whole programs and commands
(:mod:`~divergent.cli.program_group`); the language model (:class:`~divergent.cli.llm_options.ModelGroup`);
the output (:class:`~divergent.cli.outputs.OutputGroup`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from divergent.cli.application import (
    input_errors,
    live_progress,
    phase_lines,
    process_started,
    stderr_console,
)
from divergent.cli.function_group import FunctionGroup
from divergent.cli.llm_options import ModelGroup
from divergent.cli.option_groups import OptionGroup, apply_groups
from divergent.cli.outputs import OutputGroup
from divergent.cli.program_group import ProgramGroup
from divergent.cli.search_groups import ComparisonGroup, LimitsGroup, SearchGroup
from divergent.errors import InvalidArgument

if TYPE_CHECKING:
    from divergent.llm.client import LLMClient

__all__ = ["IMPLEMENTATIONS_HELP", "SearchFlags", "SearchRun", "run_search"]

#: the help of the searching commands' implementations argument: every form a spec takes, for
#: every kind of program
IMPLEMENTATIONS_HELP = (
    "Python functions: file.py[:function], module:function, git REV:file.py[:function]. Whole programs "
    "reading stdin: file.c, .cc/.cpp/.cxx, .java, .py with --stdin, exec:PATH (any executable). Commands: "
    "cmd:COMMAND (run by /bin/sh; its exit status counts).")


@dataclass(frozen=True)
class SearchFlags:
    """The option groups of every searching command (check, cluster), in the order ``--help`` shows
    them and they are applied: the groups every kind reads, then the kinds' own groups, then the
    model and the output."""

    search: SearchGroup
    comparison: ComparisonGroup
    limits: LimitsGroup
    functions: FunctionGroup
    programs: ProgramGroup
    model: ModelGroup
    outputs: OutputGroup

    def groups(self) -> tuple[OptionGroup, ...]:
        return tuple(getattr(self, field.name) for field in fields(self))

    def options_for(self, kind: Any) -> Any:
        """The search options for programs of ``kind`` (a :class:`~divergent.kinds.base.ProgramKind`):
        every group its kind reads, applied in order (the model's client is not opened yet:
        :meth:`ModelGroup.connect`); a group of another kind whose flags were given is an input error."""
        from divergent.kinds.options import SearchOptions

        return apply_groups(self.groups(), kind, self, SearchOptions(started=process_started()))

    def kind_of(self, implementations: list[str]) -> Any:
        """The kind of the programs the specs name, and what the groups say of it (``--stdin``
        asks for whole programs: :meth:`OptionGroup.choosing`)."""
        from divergent.kinds.options import SearchOptions
        from divergent.kinds.registry import choose_kind

        options = SearchOptions()
        for group in self.groups():
            options = group.choosing(options)
        return choose_kind(implementations, options)


@dataclass(frozen=True)
class SearchRun:
    """What a searching command ran: the kind of the programs, the programs (loaded once), the
    options, and what ``run`` returned."""

    kind: Any
    programs: tuple[Any, ...]
    options: Any
    result: Any


def run_search(implementations: list[str], flags: SearchFlags, run: Callable[..., Any], *,
               load: Callable[..., Any] | None = None, minimum: int = 1) -> SearchRun:
    """Choose the programs' kind, build the options for it and load the programs (once), and call
    ``run(programs, options)`` (check or cluster) with a live progress display; input errors exit 2
    the contract's way. ``load(kind, specs, options)``: how the programs load (default: all or
    none, a bad spec an input error; ``cluster`` keeps going past samples that do not load);
    ``minimum``: the fewest programs the command compares (fewer is an input error, told before the
    model's client is set up)."""
    from divergent.trace import mark

    mark("search modules imported")

    quiet = flags.outputs.quiet_display
    with input_errors(flags.outputs.prints_json):
        kind = flags.kind_of(implementations)
        options = flags.options_for(kind)
        programs = kind.load(implementations, options) if load is None else load(kind, implementations, options)
        if len(programs) < minimum:
            raise InvalidArgument(f"need at least {minimum} {kind.noun}s to compare, got {len(programs)}")
        mark("programs loaded")
        # (no console at all when quiet: a --json run never loads rich)
        if flags.outputs.verbose:
            progress, stop_progress = phase_lines(), (lambda: None)
        else:
            progress, stop_progress = live_progress(stderr_console(quiet), True) if not quiet else (None, lambda: None)
        options = options.with_(progress=progress)
        try:
            options = flags.model.connect(options)
            result = run(list(programs), options)
            if options.llm is not None:
                options.llm.close()  # (first: no request leaves after the note says what left)
                result = with_note(result, model_data_note(options.llm, report_in(result)))
            return SearchRun(kind=kind, programs=programs, options=options, result=result)
        finally:
            stop_progress()
            if options.llm is not None:
                options.llm.close()


def model_data_note(llm: LLMClient, report: Any = None) -> str:
    """What the report says when a model took part: what left the machine, and for where, as far
    as it is known (a refused connection sent nothing; a request that got no answer may have
    reached the endpoint)."""
    from divergent.llm.chat import Usage
    from divergent.search.verdict import endpoint_failure

    endpoint = llm.settings.base_url or "the OpenAI API"
    usage = llm.usage()
    if usage.calls:
        return (f"with --model, the programs' source, inputs and outputs (return values, exceptions, printed "
                f"text) were sent to {endpoint}, and the answers stored in the response cache")
    failure_text = _model_failure_text(report) if report is not None else ""
    if usage.cached_calls and not usage.retries and not failure_text:
        return f"with --model, every answer came from the response cache: nothing was sent to {endpoint}"
    if usage == Usage() and (not _model_asked(report) or not getattr(llm, "requests_out", 1)) and not failure_text:
        # the search ended before the model's engine made its first request (the others found the answer)
        return f"with --model, the search ended before the model was asked anything: nothing was sent to {endpoint}"
    failure = endpoint_failure(failure_text) if failure_text else "it did not answer within the budget"
    if "refused the connection" in failure or "does not resolve" in failure or not getattr(llm, "requests_out", 1):
        return f"with --model, nothing was sent to {endpoint}: {failure}"
    return (f"with --model, no answer came from {endpoint} ({failure}): requests carrying the programs' source, "
            f"inputs and outputs may have reached it")


def _model_asked(report: Any) -> bool:
    """Whether the model was asked anything in the run (an engine driving it started, or the filter
    judged a difference), answered or not."""
    from divergent.engines.registry import NEEDS_MODEL

    if report is None:
        return False
    return (any(stats.name in NEEDS_MODEL for stats in report.engines)
            or any(note.startswith("filter:") for note in report.notes)
            or any(split.filter is not None for split in report.splits))


def _model_failure_text(report: Any) -> str:
    """The first words a report has on why the model failed (a model engine's stop, the filter's note)."""
    from divergent.engines.registry import NEEDS_MODEL

    for stats in report.engines:
        if stats.name in NEEDS_MODEL and stats.stopped.startswith("failed"):
            return stats.stopped
    return next((note for note in report.notes if note.startswith(("filter:", "engine llm", "semantic clustering"))),
                "")


def report_in(result: Any) -> Any:
    """The Report in what a searching command's ``run`` returned (a Report, a Clustering, a tuple)."""
    if isinstance(result, tuple) and result:
        return report_in(result[0])
    return getattr(result, "report", result)


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
