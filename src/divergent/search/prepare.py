"""From what the caller named to a running :class:`~divergent.search.loop.Search`: choose the kind of
program once, load the programs once, let the kind set up what a search over them needs, start the
runner while the seeds are read."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from divergent.errors import BudgetSpent, DivergentError, InvalidArgument
from divergent.kinds.options import ImplementationSpec, SearchOptions
from divergent.kinds.registry import choose_kind
from divergent.programs import Program
from divergent.sandbox.isolation import GUARANTEES, Isolation, choose_level
from divergent.sandbox.runner import Runner
from divergent.search.fresh import Prestarted
from divergent.search.loop import Search
from divergent.trace import mark


def load_programs(specs: Sequence[ImplementationSpec], options: SearchOptions | None = None,
                  **changes: Any) -> tuple[Program, ...]:
    """Every spec loaded as a program of the one kind they name (``options``/``changes`` as for
    :func:`prepare`: ``function``, ``stdin``, build flags...); a loaded program is taken as it is,
    so programs loaded here are loaded once."""
    options = SearchOptions.of(options, **changes)
    return choose_kind(specs, options).load(specs, options)


def prepare(
    implementations: Sequence[ImplementationSpec], options: SearchOptions | None = None, *, minimum: int = 2,
    main_runner: Callable[[], Runner] | None = None, **changes: Any,
) -> Search:
    """Load, validate and start a :class:`Search` (shared by check, cluster and the benchmarks).

    ``options`` (or the defaults) with ``changes`` applied: see :class:`SearchOptions`.
    ``main_runner``: the search's main runner, from a caller that keeps warm workers of these very
    programs (their ``close`` is the caller's business); the fresh runners that confirm a difference
    then start only when one is found, not beside the main one."""
    options = SearchOptions.of(options, **changes)
    # the budget counts from here when the caller gave no start (the CLI gives the process's)
    options = options if options.started is not None else options.with_(started=time.monotonic())
    kind = choose_kind(implementations, options)
    programs = kind.load(implementations, options)
    if len(programs) < minimum:
        raise InvalidArgument(f"need at least {minimum} {kind.noun}s to compare, got {len(programs)}")
    try:
        subjects = kind.set_up(programs, options)
    except BudgetSpent as error:
        raise spent(error, kind, programs, options) from None
    mark("set up")
    # The runner starts (and loads the programs) while the seeds are read and checked; the engines'
    # libraries are imported only when an engine's first turn comes. With many programs no spare
    # runner starts beside the main one (it would take the core the main one starts on).
    runner = Prestarted(main_runner if main_runner is not None else subjects.open_runner)
    try:
        subjects.gather_seeds()
        mark("seeds gathered")
        return Search(subjects, runner=runner, spares_now=main_runner is None and len(programs) <= MANY_AT_ONCE)
    except BudgetSpent as error:
        runner.discard()
        subjects.close()
        raise spent(error, kind, programs, options) from None
    except BaseException:
        runner.discard()
        subjects.close()
        raise


#: from this many programs on, a search starts its fresh runners only when it needs one
MANY_AT_ONCE = 8


def spent(error: BudgetSpent, kind: Any, programs: Sequence[Program], options: SearchOptions) -> BudgetSpent:
    """``error`` with the report of the search that never ran (``too-few-inputs``, its reason)."""
    from divergent.records import ExitReason
    from divergent.search.verdict import MANY_IMPLEMENTATIONS, unjudged_report

    floor = kind.min_inputs if options.min_inputs is None else options.min_inputs
    started = options.started if options.started is not None else time.monotonic()
    reason = str(error).splitlines()[0]
    if len(programs) >= MANY_IMPLEMENTATIONS:
        reason = f"{len(programs)} implementations: raise --budget ({reason.removesuffix(': raise --budget')})"
    notes: tuple[str, ...] = ()
    isolation = ""
    with contextlib.suppress(DivergentError):
        level = choose_level(options.isolation)
        isolation = level.value
        if level is not Isolation.BUBBLEWRAP:  # what the runs would have had, as a search says it
            notes = (f"sandbox: {level.value} only — {GUARANTEES[level]}",)
    error.report = replace(unjudged_report(tuple(program.label for program in programs), reason,
                                           kind=kind.name, floor=floor, seconds=time.monotonic() - started,
                                           exit_reason=ExitReason.BUDGET_SECONDS, notes=notes), isolation=isolation)
    return error
