"""Splitting behaviour classes on confirmed differences: the loop ``cluster`` runs (and ``check``
after its first find), with the spurious-counterexample filter's say on every split."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from divergent.records import Counterexample, ExitReason, FilterDecision, FilterVerdict, Observation, Split
from divergent.search.confirmation import NO_TIME
from divergent.search.loop import Search
from divergent.search.partition import Partition, refine

#: differences that do not hold on fresh workers cost a fresh pool each; past this many, stop trying
MAX_FAILED_CONFIRMATIONS = 20
#: each difference the spurious-counterexample filter judges costs a model call; past this many
#: judged irrelevant in one run, later differences are taken unjudged (kept, never dropped)
MAX_FILTERED_OUT = 20
Result = TypeVar("Result")


def refine_partition(
    search: Search,
    partition: Partition,
    *,
    deadline: float | None = None,
    pending: Sequence[tuple[str, Observation]] = (),
) -> ExitReason:
    """Run the search loop, splitting classes on confirmed differences, until nothing is left to
    split, the budget or ``deadline`` (a ``time.monotonic()`` value) runs out, or the engines stop.

    ``pending`` are observations already made and not yet looked at (they are looked at first)."""
    count = len(search.implementations)
    try:
        while len(partition.classes) < count:
            if pending:
                observations, pending = list(pending), ()
            else:
                observations = search.next_round(deadline)
                if isinstance(observations, ExitReason):
                    return observations
            for engine_name, observation in observations:
                if len(refine(partition.classes, observation, search.comparison)) == len(partition.classes):
                    continue
                if partition.failed_confirmations >= MAX_FAILED_CONFIRMATIONS:
                    search.tally.discounted += 1  # a difference nobody settled backs no verdict
                    continue
                if set_apart(search, partition, engine_name, observation):
                    continue
                confirmed, why = search.confirm(observation)
                if confirmed is None:
                    note_unconfirmed(search, partition, observation, why)
                    continue
                refined = refine(partition.classes, confirmed, search.comparison)
                if len(refined) == len(partition.classes):
                    continue
                # A split the filter judges irrelevant does not split the classes (ProbeGen, Sec. 5).
                verdict = assess_relevance(search, partition, engine_name, confirmed)
                if verdict is not None and not verdict.relevant:
                    continue
                partition.classes = refined
                partition.splits.append(
                    Split(input=confirmed.input, classes=refined, outcomes=confirmed.outcomes, engine=engine_name,
                          filter=verdict)
                )
    except KeyboardInterrupt:
        return ExitReason.INTERRUPTED
    return ExitReason.FOUND


def assess_relevance(search: Search, partition: Partition, engine_name: str, observation: Observation) -> FilterVerdict | None:
    """The spurious-counterexample filter's verdict on a confirmed difference (None without a filter).

    One judged irrelevant is kept in ``partition.filtered_out``, with its verdict, for the report."""
    spurious_filter = search.spurious_filter
    if spurious_filter is None:
        return None
    if len(partition.filtered_out) >= MAX_FILTERED_OUT:
        return FilterVerdict(
            relevant=True,
            rationale=f"not judged: {MAX_FILTERED_OUT} differences were already judged irrelevant in this run",
            differences=FilterDecision.UNJUDGED,
            model=spurious_filter.model,
        )
    if partition.filter_down:
        return FilterVerdict(relevant=True, rationale=f"not judged: {partition.filter_down}",
                             differences=FilterDecision.UNJUDGED, model=spurious_filter.model)
    search.journal.phase("judging")
    # The model is asked on a thread of its own and waited for at most half of what is left of the
    # budget: a slow or dead endpoint leaves the difference unjudged (kept), never the budget spent.
    remaining = search.remaining()
    verdict = within(remaining / 2 if remaining != float("inf") else None,
                     lambda: spurious_filter.assess(search.implementations, observation.input, observation.outcomes))
    if verdict is None:
        partition.filter_down = "the filter's model did not answer within the budget"
        verdict = FilterVerdict(relevant=True, rationale=f"not judged: {partition.filter_down}",
                                differences=FilterDecision.UNJUDGED, model=spurious_filter.model)
    elif verdict.differences is FilterDecision.UNJUDGED:
        partition.filter_down = verdict.rationale.removeprefix("not judged: ")
    if verdict.differences is FilterDecision.UNJUDGED and not search.journal.noted("filter:"):
        search.journal.note(f"filter: {verdict.rationale}; differences are kept unjudged")
    if not verdict.relevant:
        partition.filtered_out.append(
            Counterexample(
                input=observation.input,
                outcomes=observation.outcomes,
                classes=observation.classes,
                engine=engine_name,
                original=observation.input,
                function_name=search.implementations[0].display_name,
                filter=verdict,
            )
        )
        if len(partition.filtered_out) == MAX_FILTERED_OUT:
            search.journal.note(
                f"filter: {MAX_FILTERED_OUT} differences judged irrelevant; later ones are kept unjudged"
            )
    return verdict


#: differences outside what the problem is known to allow kept in the report (the rest are counted)
MAX_SET_APART = 5


def set_apart(search: Search, partition: Partition, engine_name: str, observation: Observation) -> bool:
    """Whether a difference lies outside what the programs' kind lets a claim rest on
    (``Subjects.claimable``: a whole program's examples' shape); such a difference is kept in
    ``partition.filtered_out`` with what it breaks, noted, never claimed, and the search goes on."""
    reason = search.subjects.claimable(observation.input)
    if reason is None:
        return False
    partition.set_apart += 1
    if partition.set_apart <= MAX_SET_APART:
        call = observation.input.call(search.implementations[0].display_name, max_length=60)
        search.journal.note(f"a difference outside the examples' shape, not claimed: {call}: {reason}")
        partition.filtered_out.append(Counterexample(
            input=observation.input, outcomes=observation.outcomes, classes=observation.classes, engine=engine_name,
            original=observation.input, function_name=search.implementations[0].display_name,
            filter=FilterVerdict(relevant=False, rationale=f"outside the examples' shape: {reason}",
                                 differences=FilterDecision.IRRELEVANT)))
    return True
def within(seconds: float | None, work: Callable[[], Result]) -> Result | None:
    """``work()`` on a thread of its own, waited for at most ``seconds`` (None: as long as it takes);
    None when it has not ended by then (it goes on, its answer dropped). What it raises is raised."""
    box: list[Any] = []
    done = threading.Event()

    def run() -> None:
        try:
            box.append((True, work()))
        except BaseException as error:  # noqa: BLE001 - raised again in the caller's thread
            box.append((False, error))
        finally:
            done.set()

    threading.Thread(target=run, name="divergent-within", daemon=True).start()
    done.wait(None if seconds is None else max(0.0, seconds))
    if not box:
        return None
    ok, value = box[0]
    if not ok:
        raise value
    return value


def note_unconfirmed(search: Search, partition: Partition, observation: Observation, why: str) -> None:
    if why.startswith(NO_TIME):
        # not a difference that failed to hold: one nobody could settle (the verdict discounts it)
        search.journal.note(f"a difference seen on {observation.input.call(search.implementations[0].display_name, max_length=60)} "
                            f"was not settled: {why}", once=True)
        return
    partition.failed_confirmations += 1
    if why.startswith("not deterministic"):
        partition.nondeterministic.append(observation.input)
    if partition.failed_confirmations <= 5:
        search.journal.note(f"{observation.input.call(search.implementations[0].display_name, max_length=60)}: {why}")
    if partition.failed_confirmations == MAX_FAILED_CONFIRMATIONS:
        search.journal.note(f"stopped confirming after {MAX_FAILED_CONFIRMATIONS} differences that did not hold")
