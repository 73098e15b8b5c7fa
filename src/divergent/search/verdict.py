"""The one rule for a verdict, for every kind and every command that gives one (``check``,
``cluster``, ``assert_equivalent``, the benchmarks' execution judges): what a search judged goes in
(:class:`Evidence`), the verdict and its reason come out (:class:`Ruling`, :func:`rule`).

* **divergent** needs a difference confirmed in the reference mode (a fresh process per run, the
  mode the printed ``reproduce`` command uses: :mod:`divergent.search.confirmation`);
* **proven-equivalent** needs a proof (``engines/calls/proofs.py``);
* **equivalent-on-all-inputs** needs every valid input of a finite space with sure edges listed,
  run on every implementation and judged (:mod:`divergent.search.spaces`); no floor applies;
* **no-difference-found** needs at least the floor of judged inputs (``--min-inputs``, the kind's
  default: :attr:`divergent.kinds.base.ProgramKind.min_inputs`), or a finite input space judged
  whole (every valid input an engine knows of was run, or an engine that draws from the input space
  itself ran out of new inputs, with no more rejected than judged);
* else **too-few-inputs**, with the reason in words a user can act on ("parameter x has no
  annotation and no seeds", "the budget ended before the first input", "the model endpoint refused
  the connection", "200 implementations: raise --budget").

An interrupt does not change the rule: the verdict says what was earned before it (the command
exits 130 all the same).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from divergent.engines.registry import ENUMERATING, NEEDS_MODEL
from divergent.records import (
    Counterexample,
    EngineStats,
    ExitReason,
    Proof,
    Report,
    SpaceJudged,
    TimelinePoint,
    Verdict,
)
from divergent.search.notes import model_engine_notes, stuck_note, unsettled_notes
from divergent.search.partition import Partition
from divergent.search.spaces import space_judged, space_seen

if TYPE_CHECKING:
    from divergent.search.loop import Search

#: from this many implementations on, a budget that ended too soon is told as their number
MANY_IMPLEMENTATIONS = 20


@dataclass(frozen=True)
class Evidence:
    """What a search judged, as the verdict's rule reads it."""

    #: valid inputs run on every implementation and compared, and settled (see ``run``)
    inputs: int
    #: the fewest judged inputs that back "no difference" (0: no floor)
    floor: int
    #: why the search stopped
    exit_reason: ExitReason
    #: a difference confirmed in the reference mode
    confirmed: bool = False
    #: a proof of equivalence, when an engine has one
    proof: Proof | None = None
    #: a finite space with sure edges whose every valid input ran and was judged, when one was
    whole: SpaceJudged | None = None
    #: a small input space the search judged whole (what it is), when it did
    space: str | None = None
    #: inputs never run: a precondition or the validator rejected them
    rejected: int = 0
    #: the number of implementations compared
    implementations: int = 2
    #: every engine's counts and why it stopped
    engines: Sequence[EngineStats] = ()
    #: the inputs run, settled or not (-1: as many as ``inputs``): a difference the warm mode showed
    #: that the reference mode never confirmed or refuted backs no verdict
    run: int = -1


@dataclass(frozen=True)
class Ruling:
    """A verdict and why: ``basis`` names what backs it (``difference``, ``proof``, ``whole-space``,
    ``space``, ``exhausted``, ``inputs``, or ``none`` for too few inputs); ``reason`` says it in
    words; ``space``: the finite space judged whole (``equivalent-on-all-inputs``)."""

    verdict: Verdict
    reason: str
    basis: str
    space: SpaceJudged | None = None

    @property
    def earned(self) -> bool:
        """Whether the verdict is backed (every verdict but ``too-few-inputs``)."""
        return self.verdict is not Verdict.TOO_FEW_INPUTS


def rule(evidence: Evidence) -> Ruling:
    """The verdict ``evidence`` earns, with its reason."""
    inputs, floor = evidence.inputs, evidence.floor
    if evidence.confirmed:
        return Ruling(Verdict.DIVERGENT, "a difference confirmed in the reference mode (a fresh process per run)",
                      "difference")
    if evidence.proof is not None:
        return Ruling(Verdict.PROVEN_EQUIVALENT,
                      f"proven by {evidence.proof.engine} over {evidence.proof.paths} path(s)", "proof")
    if evidence.whole is not None:
        whole = evidence.whole
        return Ruling(Verdict.EQUIVALENT_ON_ALL_INPUTS,
                      f"equivalent on all {whole.inputs:,} valid input(s): {whole.description} (each ran on every "
                      f"program and was judged; {whole.listed:,} listed, validity judged by {whole.judge})",
                      "whole-space", space=whole)
    if inputs >= floor:
        return Ruling(Verdict.NO_DIFFERENCE_FOUND, f"{inputs:,} input(s) judged (the floor is {floor}: --min-inputs)",
                      "inputs")
    dry = _ran_dry(evidence)
    if dry is not None:
        return Ruling(Verdict.NO_DIFFERENCE_FOUND,
                      f"the engines ran out of new inputs after {inputs} valid input(s), fewer than {floor} "
                      f"(--min-inputs): the inputs they can make are that few ({dry})", "exhausted")
    if evidence.space is not None:
        return Ruling(Verdict.NO_DIFFERENCE_FOUND,
                      f"every valid input was judged: {evidence.space} ({inputs} in all, fewer than {floor} "
                      f"(--min-inputs), but there are no more)", "space")
    return Ruling(Verdict.TOO_FEW_INPUTS, shortfall(evidence), "none")


def _ran_dry(evidence: Evidence) -> str | None:
    """How an engine that draws from the input space itself (not from a list: seeds, a generator, a
    model) ran out of new inputs, when every engine stopped (``exhausted``) and no more inputs were
    rejected than judged: the space it draws from was seen whole; None otherwise."""
    if evidence.exit_reason is not ExitReason.EXHAUSTED or evidence.inputs == 0 or evidence.rejected > evidence.inputs:
        return None
    for stats in evidence.engines:
        if stats.name in ENUMERATING and stats.stopped.startswith("exhausted") and stats.inputs:
            return f"{stats.name}: {stats.stopped.removeprefix('exhausted: ')}"
    return None


def shortfall(evidence: Evidence) -> str:
    """Why a search judged fewer inputs than its floor, in words a user can act on (the counts are
    the headline's: ``divergent.report.text.too_few_headline``)."""
    inputs, count = evidence.inputs, evidence.implementations
    model = model_failure(evidence.engines)
    with_model = f"; {model}" if model else ""
    if inputs == 0 and evidence.engines and all(stats.inputs == 0 and stats.stopped for stats in evidence.engines):
        # every engine stopped without an input: their reasons are the reason
        return _engines_reason(evidence.engines, model)
    if evidence.exit_reason is ExitReason.INTERRUPTED:
        return f"interrupted after {inputs} input(s)" + with_model
    if evidence.rejected > inputs:
        return (f"{evidence.rejected:,} input(s) were rejected as invalid: give examples, a generator or "
                f"--input-format" + with_model)
    if evidence.exit_reason is ExitReason.BUDGET_EXECUTIONS:
        return "--executions ended the search: raise it" + with_model
    if evidence.exit_reason is ExitReason.BUDGET_SECONDS:
        if count >= MANY_IMPLEMENTATIONS:
            return f"{count} implementations: raise --budget" + with_model
        unsettled = evidence.run - inputs
        if inputs == 0 and unsettled > 0:
            return (f"the budget ended before the reference mode settled the {unsettled} input(s) run: raise --budget"
                    + with_model)
        if inputs == 0:
            return "the budget ended before the first input" + with_model
        return "the budget ended too soon: raise --budget" + with_model
    stopped = [f"{stats.name} {stats.stopped}" for stats in evidence.engines if stats.stopped]
    what = "ran out of new inputs" if evidence.exit_reason is ExitReason.EXHAUSTED else "stopped early"
    return f"the engines {what}" + (f" ({'; '.join(stopped)})" if stopped else "") + with_model


def _engines_reason(engines: Sequence[EngineStats], model: str) -> str:
    """Why engines that all stopped without an input did: the model's failure when only model
    engines ran, else the shortest reason of the engines that make inputs of their own (the
    others' are longer forms of it), else the seeds' ("no seed inputs")."""
    if all(stats.name in NEEDS_MODEL for stats in engines):
        return model or "; ".join(f"the {stats.name} engine stopped: {_stopped_why(stats.stopped)}" for stats in engines)
    reasons = [_stopped_why(stats.stopped) for stats in engines if stats.name != "seeds" and stats.name not in NEEDS_MODEL]
    reasons = [reason for reason in reasons if reason]
    if reasons:
        reason = min(reasons, key=len)
        return f"{reason}; {model}" if model else reason
    seeds = next((stats for stats in engines if stats.name == "seeds"), None)
    if seeds is not None:
        return "no seed inputs (--seeds)" + (f"; {model}" if model else "")
    return model or "every engine stopped before its first input"


def _stopped_why(stopped: str) -> str:
    """``unsupported: parameter x has no annotation`` → ``parameter x has no annotation``."""
    return stopped.partition(": ")[2].strip() if ": " in stopped else stopped.strip()


#: what a model client's error says → what a report says about the endpoint
_ENDPOINT_FAILURES = (
    (re.compile(r"refused|Errno 111", re.IGNORECASE), "the model endpoint refused the connection"),
    (re.compile(r"name or service not known|nodename nor servname|name resolution|getaddrinfo|Errno -[23]",
                re.IGNORECASE), "the model endpoint's host name does not resolve"),
    (re.compile(r"no answer within|did not answer|timed? ?out|deadline", re.IGNORECASE),
     "the model endpoint did not answer in time"),
    (re.compile(r"API key|HTTP 401|HTTP 403", re.IGNORECASE), "the model endpoint refused the API key"),
    (re.compile(r"cannot connect|unreachable|connection", re.IGNORECASE), "the model endpoint could not be reached"),
)


def model_failure(engines: Sequence[EngineStats]) -> str:
    """What became of the model, when an engine that drives one failed (else "")."""
    for stats in engines:
        if stats.name in NEEDS_MODEL and stats.stopped.startswith("failed"):
            return endpoint_failure(stats.stopped)
    return ""


def endpoint_failure(message: str) -> str:
    """A model client's error in a few words ("the model endpoint refused the connection")."""
    for pattern, words in _ENDPOINT_FAILURES:
        if pattern.search(message):
            return words
    detail = " ".join(message.split())
    return f"the model failed ({detail[:120]})"


def judge(search: Search, exit_reason: ExitReason, *, confirmed: bool = False) -> Ruling:
    """The verdict a search earned when it stopped for ``exit_reason`` (``confirmed``: it holds a
    difference confirmed in the reference mode)."""
    floor = search.subjects.input_floor
    judged = search.judged
    listed = exit_reason not in (ExitReason.INTERRUPTED, ExitReason.PROVEN) and not confirmed
    return rule(Evidence(
        inputs=judged, floor=floor, exit_reason=exit_reason, confirmed=confirmed,
        proof=search.proof if exit_reason is ExitReason.PROVEN else None,
        whole=space_judged(search) if listed else None,
        space=space_seen(search) if judged < floor else None, rejected=search.rejected,
        implementations=len(search.implementations), engines=search.portfolio.stats(), run=search.tally.inputs_run,
    ))


def undecided(search: Search, classes: Sequence[Sequence[int]]) -> dict[int, str]:
    """The members of a class of several that were judged on fewer inputs than the floor (and than
    another of their class) because they ran past the limit where the others answered: never told
    apart from the others, so never counted as one of them (with why)."""
    floor = max(1, search.subjects.input_floor)
    found = {}
    for members in classes:
        if len(members) < 2:
            continue
        judged = {i: search.tally.inputs_run - search.tally.unjudged_by[i] for i in members}
        most = max(judged.values())
        for i in members:
            if search.tally.unjudged_by[i] and judged[i] < min(floor, most):
                found[i] = (f"ran past the limit on {search.tally.unjudged_by[i]:,} input(s) where others answered, "
                            f"judged on {judged[i]:,}")
    return found


def judge_partition(search: Search, exit_reason: ExitReason, classes: Sequence[Sequence[int]]) -> Ruling:
    """The verdict behind behaviour classes (``cluster``): every implementation set apart from
    every other is all there is to tell; else the classes may lump implementations nobody told
    apart unless enough inputs (or a proof, or the whole input space) back them, as for ``check``."""
    count = len(search.implementations)
    if count == 1:
        return Ruling(Verdict.NO_DIFFERENCE_FOUND, "one implementation: nothing to tell apart", "space")
    if len(classes) == count:
        return Ruling(Verdict.DIVERGENT, "every implementation was told apart from every other (each split confirmed)",
                      "difference")
    ruling = judge(search, exit_reason)
    if ruling.earned and len(classes) > 1:
        return Ruling(Verdict.DIVERGENT, f"{len(classes)} classes, each split confirmed; {ruling.reason}", ruling.basis)
    return ruling


def unjudged_report(implementations: Sequence[str], reason: str, *, classes: tuple[tuple[int, ...], ...] = (),
                    notes: Sequence[str] = (), seconds: float = 0.0, kind: str = "python-function",
                    exit_reason: ExitReason = ExitReason.ERROR, floor: int = 0) -> Report:
    """The report of a search that judged nothing (no implementation loads, the budget ended while
    the programs were built): ``too-few-inputs`` with ``reason``."""
    return Report(
        verdict=Verdict.TOO_FEW_INPUTS, implementations=tuple(implementations), counterexample=None,
        classes=classes or (tuple(range(len(implementations))),), splits=(), seconds=round(seconds, 3), executions=0,
        inputs=0, engines=(), exit_reason=exit_reason, isolation="", policy="", seed=0, notes=tuple(notes),
        kind=kind, reason=reason, min_inputs=floor, evidence="none",
    )


def report_of(search: Search, *, ruling: Ruling, counterexample: Counterexample | None, partition: Partition,
              exit_reason: ExitReason) -> Report:
    """The report of ``search`` with the verdict ``ruling`` (and its reason), what it judged and
    what its notes say."""
    verdict = ruling.verdict
    stats = search.portfolio.stats()
    now = time.monotonic()
    notes = (
        search.journal.notes
        # (inputs still being re-run say nothing once a difference is reported)
        + (unsettled_notes(search.escalator.waiting(), search.implementations, search.call_limit.current)
           if verdict is not Verdict.DIVERGENT else ())
        + model_engine_notes(search.engines, stats)
        + (stuck_note(now - search.history.last_novel, now - search.history.began, search.tally.inputs_run - search.history.inputs_at_last_novel,
                      stats) if verdict is Verdict.NO_DIFFERENCE_FOUND else ())
        + tuple(search.subjects.report_notes(search.runner))
    )
    llm = search.options.llm
    return Report(
        verdict=verdict, reason=ruling.reason, evidence=ruling.basis, min_inputs=search.subjects.input_floor,
        implementations=tuple(impl.label for impl in search.implementations), counterexample=counterexample,
        classes=partition.classes, splits=tuple(partition.splits), seconds=round(search.elapsed, 3),
        executions=search.executions, inputs=search.tally.inputs_run, judged=search.judged, engines=stats,
        exit_reason=exit_reason,
        isolation=search.runner.level.value, policy=search.comparison.describe(), seed=search.options.seed, notes=notes,
        nondeterministic=tuple(partition.nondeterministic), filtered_out=tuple(partition.filtered_out),
        llm=None if llm is None else {"model": llm.model, **llm.usage().as_dict()},
        inferred_inputs=search.subjects.inferred_inputs(),
        timeline=(*search.history.timeline, TimelinePoint(seconds=round(search.elapsed, 3), engines=stats)),
        rejected=search.rejected, proof=search.proof if verdict is Verdict.PROVEN_EQUIVALENT else None,
        kind=search.kind.name, space=ruling.space,
    )
