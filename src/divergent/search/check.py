"""``check``: search until the first confirmed difference, shrink it, and report; ``assert_equivalent``
for test suites."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from divergent.errors import BudgetSpent
from divergent.kinds.options import ImplementationSpec, SearchOptions
from divergent.kinds.registry import choose_kind
from divergent.records import (
    AnyInput,
    Budget,
    Counterexample,
    ExitReason,
    FilterVerdict,
    Observation,
    Outcome,
    Report,
    Split,
)
from divergent.search.loop import RESERVE_SECONDS, Search
from divergent.search.partition import Partition
from divergent.search.prepare import prepare
from divergent.search.splitting import (
    MAX_FAILED_CONFIRMATIONS,
    MAX_SET_APART,
    assess_relevance,
    note_unconfirmed,
    refine_partition,
    set_apart,
)
from divergent.search.verdict import judge, report_of


def check(
    implementations: Sequence[ImplementationSpec],
    options: SearchOptions | None = None,
    *,
    shrink: bool = True,
    **changes: Any,
) -> Report:
    """Search for an input on which the implementations differ; stop at the first confirmed one.

    ``implementations`` are spec strings (``a.py:f``, ``pkg.mod:f``, ``HEAD~1:a.py:f``), live
    functions, or :class:`~divergent.programs.PythonFunction` records; ``options`` a :class:`SearchOptions`, and/or its
    fields as keywords (budget, engines, seeds, require, policy, limits, isolation, seed, progress,
    llm, spec, spurious_filter, engine_settings, probegen). Raises LoadError, SignatureMismatch,
    MissingSeeds or InvalidArgument for bad input; a program that misbehaves is an outcome.
    """
    try:
        search = prepare(implementations, options, **changes)
    except BudgetSpent as error:
        if isinstance(error.report, Report):
            return error.report  # nothing ran: too few inputs, and why
        raise
    try:
        report = run_check(search, shrink=shrink)
    finally:
        close_search(search)
    return report


def close_search(search: Search) -> None:
    """Close the search's processes, even when Ctrl-C comes while they are closed (the report made
    before it stands; a second close ends what the first left)."""
    try:
        search.close()
    except KeyboardInterrupt:
        with contextlib.suppress(Exception, KeyboardInterrupt):
            search.close()


def run_check(search: Search, *, shrink: bool = True) -> Report:
    count = len(search.implementations)
    partition = Partition(classes=(tuple(range(count)),))
    found: tuple[str, Observation] | None = None
    verdict: FilterVerdict | None = None
    leftover: list[tuple[str, Observation]] = []
    exit_reason = ExitReason.EXHAUSTED
    try:
        while found is None:
            observations = search.next_round()
            if isinstance(observations, ExitReason):
                exit_reason = observations
                break
            warm = search.tally.running_warm
            for position, (engine_name, observation) in enumerate(observations):
                if not observation.divergent:
                    continue
                if partition.failed_confirmations >= MAX_FAILED_CONFIRMATIONS or search.out_of_budget() is not None \
                        or search.tally.running_warm != warm:  # (the warm mode's, once the search left it)
                    search.tally.discounted += 1  # a difference nobody settled backs no verdict
                    continue
                if set_apart(search, partition, engine_name, observation):
                    continue  # outside what a claim may rest on: reported apart; the search goes on
                if shrink and search.spurious_filter is None and not _is_hang(observation) and not search.tally.running_warm:
                    # Shrunk first, then confirmed: one fresh runner for the reported input, and a
                    # second only when the smaller one does not hold. (A warm runner's difference is
                    # confirmed first: shrinking one the reference mode refutes wastes the budget.)
                    established = _shrunk_then_confirmed(search, partition, observation)
                    if established is None:
                        continue
                    found = (engine_name, established[0])
                    original = established[1]
                else:
                    search.journal.phase("confirming")
                    confirmed, why = search.confirm(observation)
                    if confirmed is None:
                        note_unconfirmed(search, partition, observation, why)
                        continue
                    # Judged before shrinking: a spurious difference costs no shrinking time, and
                    # the found input is the one the engine meant (shrinking heads for edge cases
                    # such as empty or negative values, which break implicit preconditions more often).
                    verdict = assess_relevance(search, partition, engine_name, confirmed)
                    if verdict is not None and not verdict.relevant:
                        continue  # kept in partition.filtered_out; the search goes on
                    original = confirmed.input
                    if shrink and not _is_hang(confirmed):
                        confirmed, verdict = _shrunk(search, partition, engine_name, confirmed, verdict)
                    found = (engine_name, confirmed)
                leftover = observations[position + 1 :]
                exit_reason = ExitReason.FOUND
                break
    except KeyboardInterrupt:
        exit_reason = ExitReason.INTERRUPTED
    counterexample = None
    if found is not None:
        engine_name, observation = found
        partition.classes = observation.classes
        partition.splits.append(
            Split(input=observation.input, classes=observation.classes, outcomes=observation.outcomes,
                  engine=engine_name, filter=verdict)
        )
        counterexample = Counterexample(
            input=observation.input,
            outcomes=observation.outcomes,
            classes=observation.classes,
            engine=engine_name,
            original=original,
            function_name=search.implementations[0].display_name,
            filter=verdict,
            shrink_steps=search.shrink_steps if observation.input.key != original.key else (),
        )
        if count > 2 and len(partition.classes) < count and exit_reason is not ExitReason.INTERRUPTED:
            # With N implementations, spend what is left of the budget to find every class, not
            # just the first split.
            search.journal.phase("refining classes")
            stopped = refine_partition(search, partition, deadline=search.deadline, pending=leftover)
            if stopped is ExitReason.INTERRUPTED:
                exit_reason = stopped
            elif stopped is ExitReason.BUDGET_SECONDS and len(partition.classes) < count:
                search.journal.note(
                    "refining the behaviour classes was cut short by the budget: some classes may hold "
                    "implementations that differ"
                )
    if partition.set_apart > MAX_SET_APART:
        search.journal.note(f"{partition.set_apart} difference(s) outside the examples' shape in all, set apart")
    ruling = judge(search, exit_reason, confirmed=counterexample is not None)
    if ruling.basis in ("whole-space", "space", "exhausted"):
        search.journal.note(ruling.reason)  # why so few inputs back "no difference", or what was judged whole
    return report_of(search, ruling=ruling, counterexample=counterexample, partition=partition, exit_reason=exit_reason)


#: shrinking may take what is left of the budget (so a search that ends before its budget gives the
#: same counterexample however fast the machine is); with more than two implementations, at most
#: this share of it (refining the classes needs the rest), and at least this many seconds
_SHRINK_SHARE = 0.5
_SHRINK_MINIMUM = 1.0
#: seconds of shrinking without a time budget (``--executions`` only)
_SHRINK_UNBUDGETED = 5.0


def _is_hang(observation: Observation) -> bool:
    # A hang is not shrunk: every smaller input that still hangs would cost the whole escalated limit.
    return any(outcome.hang for outcome in observation.outcomes)


def _shrink_seconds(search: Search) -> float:
    """Seconds for shrinking: what the budget has left, or a share of it (0: none left, noted)."""
    left = search.remaining() - RESERVE_SECONDS
    if search.options.budget.seconds is None:
        seconds = _SHRINK_UNBUDGETED
    elif len(search.implementations) > 2:
        seconds = min(max(_SHRINK_MINIMUM, _SHRINK_SHARE * left), left)
    else:
        seconds = left
    if seconds <= 0.05:
        search.journal.note("not shrunk: the budget left no time (the counterexample is as found)", once=True)
        return 0.0
    return seconds


def _shrunk_then_confirmed(
    search: Search, partition: Partition, observation: Observation
) -> tuple[Observation, AnyInput] | None:
    """The difference shrunk (on the search's workers) and confirmed on fresh ones, with the input
    as found; the found input confirmed when the smaller one does not hold; None (noted) when
    neither does."""
    seconds = _shrink_seconds(search)
    smaller = observation
    if seconds > 0:
        search.journal.phase("shrinking")
        with contextlib.suppress(KeyboardInterrupt):
            smaller = search.shrink(observation, seconds, confirm=False)
    search.journal.phase("confirming")
    if smaller.input.key != observation.input.key:
        confirmed, _ = search.confirm(smaller)
        if confirmed is not None:
            return confirmed, observation.input
    confirmed, why = search.confirm(observation)
    if confirmed is None:
        note_unconfirmed(search, partition, observation, why)
        return None
    return confirmed, observation.input


def _shrunk(
    search: Search, partition: Partition, engine_name: str, observation: Observation, verdict: FilterVerdict | None
) -> tuple[Observation, FilterVerdict | None]:
    """The confirmed difference shrunk within what is left of the budget (the report's notes say
    when the budget cut shrinking short, or left no time for it), confirmed and judged again."""
    seconds = _shrink_seconds(search)
    if seconds <= 0:
        return observation, verdict
    search.journal.phase("shrinking")
    try:
        shrunk = search.shrink(observation, seconds)
        if shrunk.input.key != observation.input.key:
            return _judged_shrunk(search, partition, engine_name, observation, shrunk, verdict)
    except KeyboardInterrupt:
        pass
    return observation, verdict


def _judged_shrunk(
    search: Search,
    partition: Partition,
    engine_name: str,
    found: Observation,
    shrunk: Observation,
    verdict: FilterVerdict | None,
) -> tuple[Observation, FilterVerdict | None]:
    """The shrunk difference with its own verdict, or the found one when the filter judges the shrunk
    one irrelevant (a smaller input may break a precondition the found one kept)."""
    if search.spurious_filter is None:
        return shrunk, verdict
    shrunk_verdict = assess_relevance(search, partition, engine_name, shrunk)
    if shrunk_verdict is not None and not shrunk_verdict.relevant:
        call = shrunk.input.call(search.implementations[0].display_name, max_length=60)
        search.journal.note(f"not shrunk: the filter judged the smaller {call} irrelevant ({shrunk_verdict.rationale})")
        return found, verdict
    return shrunk, shrunk_verdict


def assert_equivalent(*functions: ImplementationSpec, budget: float = 5.0, **changes: Any) -> Report:
    """For test suites: raise AssertionError showing the shrunk counterexample if any is found, or
    saying why too few inputs were judged to tell (``min_inputs=`` lowers the floor).

    ``changes`` are :class:`SearchOptions` fields, as for :func:`check` (``engines``, ``seeds``,
    ``require``, ``policy``, ...).
    """
    if len(functions) == 1 and isinstance(functions[0], list | tuple):
        functions = tuple(functions[0])
    report = check(list(functions), budget=Budget(seconds=budget), **changes)
    if report.exit_reason is ExitReason.INTERRUPTED:
        raise KeyboardInterrupt
    if report.divergent or report.too_few_inputs:
        from divergent.kinds.reports import plain_report

        # too few inputs is no pass: a test must not pass on evidence the search did not gather
        raise AssertionError(plain_report(report))
    return report


def outcomes_on(
    implementations: Sequence[ImplementationSpec],
    item: object,
    options: SearchOptions | None = None,
    **changes: Any,
) -> tuple[Outcome, ...]:
    """Run every implementation once on one input in the sandbox (fresh workers) and return their
    outcomes, in order: what a test reproducing a counterexample calls
    (:mod:`divergent.report.reproduce`). Compare them with the run's comparison
    (``comparison.observe(item, outcomes)``).

    ``item`` is an input of the programs' kind: an :class:`~divergent.records.Input` or a tuple of
    arguments for functions, a :class:`~divergent.records.TextInput` for whole programs;
    ``options``/``changes`` as for :func:`check` (``function``, ``limits``, ``isolation``,
    ``comparison``, and for whole programs their options: limits, build flags, a checker)."""
    chosen = SearchOptions.of(options, **changes)
    kind = choose_kind(implementations, chosen)
    programs = kind.load(implementations, chosen)
    runner = kind.open_runner(kind.reference(programs), chosen)  # the reference mode: a fresh process per run
    try:
        outcomes = runner.run([kind.input_of(item)])[0]
    finally:
        runner.close()
    assert outcomes is not None  # no deadline: every implementation ran
    return outcomes
