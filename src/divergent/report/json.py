"""The ``--json`` form of a report: one object, stable field names (a contract other tools rely on).

Values are given twice: ``value`` is a readable Python-like text, and ``args``/``kwargs`` use the
canonical encoding of :mod:`divergent.values` (builtins as JSON, other types tagged), with
non-finite floats written as ``["float", "nan"]`` so the output is strict JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from divergent import __version__
from divergent.records import FilterVerdict, Outcome, Report
from divergent.report.presentation import Presentation, ReportExtras

#: the version of the ``check``/``cluster`` JSON contract (docs/cli.md), as the harnesses' documents
#: carry theirs
REPORT_FORMAT = 1


def filter_json(verdict: FilterVerdict | None) -> dict[str, Any] | None:
    """The spurious-counterexample filter's verdict, or None when no filter was configured."""
    if verdict is None:
        return None
    return {
        "relevant": verdict.relevant,
        "rationale": verdict.rationale,
        "differences": verdict.differences.value,
        "model": verdict.model,
    }


def outcomes_json(
    labels: Sequence[str], outcomes: Sequence[Outcome], classes: tuple[tuple[int, ...], ...], presentation: Presentation,
) -> list[dict[str, Any]]:
    """Each implementation's outcome, with ``class``: the 1-based number of its behaviour class on
    this input (equal numbers, equal behaviour)."""
    class_of = {i: number for number, members in enumerate(classes, 1) for i in members}
    return [
        {**presentation.outcome_json(label, outcome), "class": class_of.get(i)}
        for i, (label, outcome) in enumerate(zip(labels, outcomes, strict=True))
    ]


def splits_json(report: Report, function_name: str, presentation: Presentation) -> list[dict[str, Any]]:
    labels = report.implementations
    return [
        {
            "call": split.input.call(function_name),
            "engine": split.engine,
            "classes": [[labels[i] for i in members] for members in split.classes],
            "outcomes": outcomes_json(labels, split.outcomes, split.classes, presentation),
            "filter": filter_json(split.filter),
        }
        for split in report.splits
    ]


def check_json(report: Report, presentation: Presentation, function_name: str = "f", *,
               extras: ReportExtras | None = None) -> dict[str, Any]:
    """The report as the JSON contract has it (docs/cli.md); its kind's ``presentation`` writes the
    counterexample and the outcomes: a call's ``args``/``kwargs``, or a whole program's ``stdin``
    (and ``input_file``, ``reproduce`` from ``extras``), each outcome's ``kind``, ``stdout``,
    ``exit_code`` or ``signal``, ``seconds`` (the kind's lookup: :func:`divergent.kinds.reports.report_json`)."""
    extras = extras or ReportExtras()
    labels = report.implementations
    if report.counterexample is not None:
        function_name = report.counterexample.function_name
    counterexample = None
    if report.counterexample is not None:
        counterexample = presentation.counterexample_json(report.counterexample, labels, extras)
    return {
        "verdict": report.verdict.value,
        # why the verdict: what backs it, or what kept the search from judging enough inputs
        "reason": report.reason,
        # what backs it: difference, proof, whole-space, space, exhausted, inputs, or none (too-few-inputs)
        "evidence": report.evidence,
        # the floor of judged inputs behind "no difference" (--min-inputs)
        "min_inputs": report.min_inputs,
        # the kind of programs compared ("python-function", "stdin-program", ...)
        "kind": report.kind,
        # what was compared, in the kind's words (the HTML report's heading)
        "title": presentation.title(report),
        "counterexample": counterexample,
        "classes": [[labels[i] for i in members] for members in report.classes],
        "splits": splits_json(report, function_name, presentation),
        # confirmed differences the spurious-counterexample filter judged irrelevant (not counted)
        "filtered_out": [presentation.counterexample_json(cx, labels, ReportExtras()) for cx in report.filtered_out],
        "engine": report.counterexample.engine if report.counterexample else None,
        "seconds": report.seconds,
        "executions": report.executions,
        "inputs": report.inputs,
        # the inputs that back the verdict: all but those whose difference only a warm mode showed
        # and the reference mode (a fresh process per run) never settled
        "judged": report.judged_inputs,
        # inputs never run: a precondition or the validator rejected them
        "rejected": report.rejected,
        "exit_reason": report.exit_reason.value,
        "implementations": list(labels),
        "engines": [
            {
                # rejected: its inputs a precondition or the validator turned away (never run)
                "name": s.name, "inputs": s.inputs, "rejected": s.rejected, "executions": s.executions,
                "seconds": s.seconds,
                "novel": s.novel, "divergences": s.divergences, "stopped": s.stopped, "explored": s.explored,
                # diversity: distinct behaviours of its inputs, its inputs since its last new
                # behaviour (and the longest such run), restarts with a fresh seed when it was stuck
                "behaviours": s.behaviours, "since_novel": s.since_novel, "longest_stale": s.longest_stale,
                "longest_stale_seconds": s.longest_stale_seconds, "restarts": s.restarts,
            }
            for s in report.engines
        ],
        "isolation": report.isolation,
        "policy": report.policy,
        "seed": report.seed,
        "notes": list(report.notes),
        "nondeterministic": [i.call(function_name) for i in report.nondeterministic],
        # the model and its usage: calls, cached_calls, prompt/completion tokens, cost, seconds, retries
        "llm": dict(report.llm) if report.llm is not None else None,
        # with "proven-equivalent": what was proven and the limits of the claim
        "proof": (
            {"engine": report.proof.engine, "paths": report.proof.paths, "limits": list(report.proof.limits)}
            if report.proof is not None
            else None
        ),
        # with "equivalent-on-all-inputs": the finite space judged whole (what it is, N valid inputs, listed)
        "space": report.space.to_json() if report.space is not None else None,
        "error": report.error or None,
        # per parameter, what the inputs were shaped from: regexes, date formats, literals, keys, grammars
        "inferred_inputs": dict(report.inferred_inputs) if report.inferred_inputs else None,
        "timeline": timeline_json(report),
        # the contract's version: raised when a field changes meaning or goes away (new fields may
        # appear without it); divergent's own version beside it
        "format": REPORT_FORMAT,
        "divergent_version": __version__,
    }


def timeline_json(report: Report) -> list[dict[str, Any]]:
    """The engines' cumulative counts over the search: ``[{"seconds", "engines": {name: {"inputs",
    "novel", "divergences", "behaviours", "restarts"}}}]``, oldest first."""
    return [
        {
            "seconds": point.seconds,
            "engines": {
                s.name: {"inputs": s.inputs, "novel": s.novel, "divergences": s.divergences,
                         "behaviours": s.behaviours, "restarts": s.restarts}
                for s in point.engines
            },
        }
        for point in report.timeline
    ]
