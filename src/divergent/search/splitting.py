"""Splitting behaviour classes on confirmed differences: the loop ``cluster`` runs (and ``check``
after its first find), with the spurious-counterexample filter's say on every split."""

from __future__ import annotations

from collections.abc import Sequence

from divergent.records import Counterexample, ExitReason, FilterDecision, FilterVerdict, Observation, Split
from divergent.search.loop import Search
from divergent.search.partition import Partition, refine

#: differences that do not hold on fresh workers cost a fresh pool each; past this many, stop trying
MAX_FAILED_CONFIRMATIONS = 20
#: each difference the spurious-counterexample filter judges costs a model call; past this many
#: judged irrelevant in one run, later differences are taken unjudged (kept, never dropped)
MAX_FILTERED_OUT = 20


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
                if partition.failed_confirmations >= MAX_FAILED_CONFIRMATIONS or set_apart(search, partition, engine_name, observation):
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
    search.journal.phase("judging")
    verdict = spurious_filter.assess(search.implementations, observation.input, observation.outcomes)
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


def note_unconfirmed(search: Search, partition: Partition, observation: Observation, why: str) -> None:
    partition.failed_confirmations += 1
    if why.startswith("not deterministic"):
        partition.nondeterministic.append(observation.input)
    if partition.failed_confirmations <= 5:
        search.journal.note(f"{observation.input.call(search.implementations[0].display_name, max_length=60)}: {why}")
    if partition.failed_confirmations == MAX_FAILED_CONFIRMATIONS:
        search.journal.note(f"stopped confirming after {MAX_FAILED_CONFIRMATIONS} differences that did not hold")
