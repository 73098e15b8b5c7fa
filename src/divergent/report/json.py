"""The ``--json`` form of a report: one object, stable field names (a contract other tools rely on).

Values are given twice: ``value`` is a readable Python-like text, and ``args``/``kwargs`` use the
canonical encoding of :mod:`divergent.values` (builtins as JSON, other types tagged), with
non-finite floats written as ``["float", "nan"]`` so the output is strict JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from divergent.model import Counterexample, FilterVerdict, Outcome, Report, TextInput
from divergent.report.programs import is_program_report, program_counterexample_json, program_outcome_json
from divergent.values import encode, json_safe


def outcome_json(label: str, outcome: Outcome) -> dict[str, Any]:
    data: dict[str, Any] = {"impl": label, "kind": outcome.kind.value, "value": outcome.describe()}
    if outcome.hang:
        data["hang"] = True
    if outcome.exception is not None:
        data["exception"] = {"type": outcome.exception.type_name, "message": outcome.exception.message}
    if outcome.stdout:
        data["stdout"] = outcome.stdout
    if outcome.args_after is not None:
        data["args_after"] = json_safe(outcome.args_after)
    data["seconds"] = round(outcome.seconds, 6)
    return data


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
    labels: tuple[str, ...], outcomes: tuple[Outcome, ...], classes: tuple[tuple[int, ...], ...], *,
    programs: bool = False,
) -> list[dict[str, Any]]:
    """Each implementation's outcome, with ``class``: the 1-based number of its behaviour class on
    this input (equal numbers, equal behaviour). ``programs``: whole programs' runs."""
    class_of = {i: number for number, members in enumerate(classes, 1) for i in members}
    one = program_outcome_json if programs else outcome_json
    return [
        {**one(label, outcome), "class": class_of.get(i)}
        for i, (label, outcome) in enumerate(zip(labels, outcomes, strict=True))
    ]


def counterexample_json(cx: Counterexample, labels: tuple[str, ...]) -> dict[str, Any]:
    return {
        "call": cx.call,
        "args": [json_safe(encode(a)) for a in cx.input.args],
        "kwargs": {k: json_safe(encode(v)) for k, v in cx.input.kwargs.items()},
        "outcomes": outcomes_json(labels, cx.outcomes, cx.classes),
        "original_call": cx.original.call(cx.function_name),
        # the calls shrinking moved through after original_call, ending with call
        "shrink_steps": [step.call(cx.function_name) for step in cx.shrink_steps],
        "engine": cx.engine,
        "filter": filter_json(cx.filter),
    }


def splits_json(report: Report, function_name: str) -> list[dict[str, Any]]:
    labels = report.implementations
    programs = is_program_report(report)
    return [
        {
            "call": split.input.call(function_name),
            "engine": split.engine,
            "classes": [[labels[i] for i in members] for members in split.classes],
            "outcomes": outcomes_json(labels, split.outcomes, split.classes, programs=programs),
            "filter": filter_json(split.filter),
        }
        for split in report.splits
    ]


def report_json(report: Report, function_name: str = "f", *, input_file: str | None = None,
                reproduce: Sequence[str] = ()) -> dict[str, Any]:
    """The report as the JSON contract has it. Whole programs (docs/cli.md): the counterexample has
    ``stdin`` (and ``input_file``, ``reproduce`` when given) instead of ``args``; each outcome
    ``kind``, ``stdout``, ``exit_code`` or ``signal``, ``seconds``."""
    labels = report.implementations
    if report.counterexample is not None:
        function_name = report.counterexample.function_name
    counterexample = None
    if report.counterexample is not None and is_program_report(report):
        counterexample = program_counterexample_json(report.counterexample, labels, input_file=input_file,
                                                     reproduce=reproduce)
    elif report.counterexample is not None:
        counterexample = counterexample_json(report.counterexample, labels)
    return {
        "verdict": report.verdict.value,
        "counterexample": counterexample,
        "classes": [[labels[i] for i in members] for members in report.classes],
        "splits": splits_json(report, function_name),
        # confirmed differences the spurious-counterexample filter judged irrelevant (not counted)
        "filtered_out": [
            program_counterexample_json(cx, labels) if isinstance(cx.input, TextInput) else counterexample_json(cx, labels)
            for cx in report.filtered_out
        ],
        "engine": report.counterexample.engine if report.counterexample else None,
        "seconds": report.seconds,
        "executions": report.executions,
        "inputs": report.inputs,
        # inputs never run: a precondition or the validator rejected them
        "rejected": report.rejected,
        "exit_reason": report.exit_reason.value,
        "implementations": list(labels),
        "engines": [
            {
                "name": s.name, "inputs": s.inputs, "executions": s.executions, "seconds": s.seconds,
                "novel": s.novel, "divergences": s.divergences, "stopped": s.stopped, "explored": s.explored,
            }
            for s in report.engines
        ],
        "isolation": report.isolation,
        "policy": report.policy,
        "seed": report.seed,
        "notes": list(report.notes),
        "nondeterministic": [i.call("f") for i in report.nondeterministic],
        # the model and its usage: calls, cached_calls, prompt/completion tokens, cost, seconds, retries
        "llm": dict(report.llm) if report.llm is not None else None,
        # with "proven-equivalent": what was proven and the limits of the claim
        "proof": (
            {"engine": report.proof.engine, "paths": report.proof.paths, "limits": list(report.proof.limits)}
            if report.proof is not None
            else None
        ),
        "error": report.error or None,
        # per parameter, what the inputs were shaped from: regexes, date formats, literals, keys, grammars
        "inferred_inputs": dict(report.inferred_inputs) if report.inferred_inputs else None,
        "timeline": timeline_json(report),
    }


def timeline_json(report: Report) -> list[dict[str, Any]]:
    """The engines' cumulative counts over the search: ``[{"seconds", "engines": {name: {"inputs",
    "novel", "divergences"}}}]``, oldest first."""
    return [
        {
            "seconds": point.seconds,
            "engines": {
                s.name: {"inputs": s.inputs, "novel": s.novel, "divergences": s.divergences} for s in point.engines
            },
        }
        for point in report.timeline
    ]
