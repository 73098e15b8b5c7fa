"""``check``: search until the first confirmed difference, shrink it, and report; ``assert_equivalent``
for test suites."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from divergent.model import (
    Budget,
    Counterexample,
    ExitReason,
    FilterVerdict,
    Observation,
    Report,
    Split,
    Verdict,
)
from divergent.search.loop import Search
from divergent.search.options import ImplementationSpec, SearchOptions
from divergent.search.partition import Partition
from divergent.search.prepare import prepare
from divergent.search.splitting import (
    MAX_FAILED_CONFIRMATIONS,
    assess_relevance,
    note_unconfirmed,
    refine_partition,
)


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
    search = prepare(implementations, options, **changes)
    try:
        return run_check(search, shrink=shrink)
    finally:
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
            for position, (engine_name, observation) in enumerate(observations):
                if not observation.divergent or partition.failed_confirmations >= MAX_FAILED_CONFIRMATIONS:
                    continue
                confirmed, why = search.confirm(observation)
                if confirmed is None:
                    note_unconfirmed(search, partition, observation, why)
                    continue
                # Judged before shrinking: a spurious difference costs no shrinking time, and the
                # found input is the one the engine meant (shrinking heads for edge cases such as
                # empty or negative values, which break implicit preconditions more often).
                verdict = assess_relevance(search, partition, engine_name, confirmed)
                if verdict is not None and not verdict.relevant:
                    continue  # kept in partition.filtered_out; the search goes on
                found = (engine_name, confirmed)
                leftover = observations[position + 1 :]
                exit_reason = ExitReason.FOUND
                break
    except KeyboardInterrupt:
        exit_reason = ExitReason.INTERRUPTED
    counterexample = None
    if found is not None:
        engine_name, observation = found
        original = observation.input
        if shrink:
            search._report_progress("shrinking")
            try:
                shrunk = search.shrink(observation, max(3.0, 0.25 * (search.budget.seconds or 20.0)))
                if shrunk.input.key != observation.input.key:
                    observation, verdict = _judged_shrunk(search, partition, engine_name, observation, shrunk, verdict)
            except KeyboardInterrupt:
                pass
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
        )
        if count > 2 and len(partition.classes) < count and exit_reason is not ExitReason.INTERRUPTED:
            # With N implementations, spend a little more to find every class, not just the first split.
            search._report_progress("refining classes")
            extra = max(2.0, 0.25 * (search.budget.seconds or 20.0))
            refine_partition(search, partition, deadline=time.monotonic() + extra, pending=leftover)
    return search.report(
        verdict=Verdict.DIVERGENT if counterexample else Verdict.NO_DIFFERENCE_FOUND,
        counterexample=counterexample,
        partition=partition,
        exit_reason=exit_reason,
    )


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
        search.notes.append(f"not shrunk: the filter judged the smaller {call} irrelevant ({shrunk_verdict.rationale})")
        return found, verdict
    return shrunk, shrunk_verdict


def assert_equivalent(*functions: ImplementationSpec, budget: float = 5.0, **changes: Any) -> Report:
    """For test suites: raise AssertionError showing the shrunk counterexample if any is found.

    ``changes`` are :class:`SearchOptions` fields, as for :func:`check` (``engines``, ``seeds``,
    ``require``, ``policy``, ...).
    """
    if len(functions) == 1 and isinstance(functions[0], list | tuple):
        functions = tuple(functions[0])
    report = check(list(functions), budget=Budget(seconds=budget), **changes)
    if report.divergent:
        from divergent.report.text import plain_report

        raise AssertionError(plain_report(report))
    return report
