"""The one place the EquiBench execution judge talks to divergent's whole-program machinery:
building programs from source text, running them in the sandbox, and searching for a difference.

* :func:`compare_on_inputs` (DCE, x86-64): build both programs once, run each input on both
  (``divergent.sandbox.process_runner.ProcessRunner`` with ``StdinProgram``s and ``TextInput``s), and compare
  each pair of outcomes exactly: how the run ended (exit code, signal, time or memory limit) and,
  when both exited normally, their whole output.
* :func:`search_difference` (OJ): ``divergent.check`` on two Python stdin programs, the statement's
  samples as examples, divergent's text engines (structure-aware mutation of the samples) under
  the pair's budget; outputs compared as tokens.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from divergent.bench.equibench.verdicts import (
    ExecutionResult,
    ExecutionSettings,
    ExecutionVerdict,
    from_report,
    not_executable,
)
from divergent.errors import DivergentError, LoadError
from divergent.kinds.options import DEFAULT_MIN_INPUTS as DEFAULT_FLOOR
from divergent.records import ExitReason, Verdict
from divergent.search.verdict import Evidence, rule

__all__ = ["compare_on_inputs", "search_difference"]

#: exit codes of the x86-64 harness itself (its arena could not be mapped, its input was short)
_HARNESS_FAILURES = {99: "the harness could not map its memory arena", 98: "the harness could not read its input"}


def _describe(outcome: Any) -> dict[str, Any]:
    described: dict[str, Any] = {"kind": str(getattr(outcome.kind, "value", outcome.kind))}
    if outcome.stdout:
        described["stdout"] = outcome.stdout[:500]
    for name in ("exit_code", "signal"):
        value = getattr(outcome, name, None)
        if value is not None:
            described[name] = value
    if outcome.detail:
        described["detail"] = outcome.detail
    return described


def _ending(outcome: Any) -> tuple[Any, ...]:
    """What must match for two runs to agree: how they ended, and the output of normal exits."""
    kind = str(getattr(outcome.kind, "value", outcome.kind))
    output = outcome.stdout if kind == "ok" else None
    return (kind, getattr(outcome, "exit_code", None), getattr(outcome, "signal", None), output)


def compare_on_inputs(
    sources: Sequence[str], language: str, inputs: Sequence[str], settings: ExecutionSettings, *, what: str
) -> ExecutionResult:
    """Run every input on both programs (until the budget runs out); the first input on which they
    end differently is the witness."""
    from divergent.load.whole_programs import load_program_source
    from divergent.records import TextInput
    from divergent.sandbox.launch import ProgramLimits
    from divergent.sandbox.process_runner import ProcessRunner

    started = time.monotonic()
    try:
        programs = [load_program_source(source, language, label=f"program {n}") for n, source in
                    enumerate(sources, start=1)]
        runner = ProcessRunner(programs, limits=ProgramLimits(time_limit=settings.timeout), isolation=settings.isolation)
    except LoadError as error:
        return not_executable(f"does not build: {' '.join(str(error).split())[:300]}")
    ran = normal = 0
    try:
        deadline = time.monotonic() + settings.budget
        for start in range(0, len(inputs), 32):
            batch = [TextInput(text, how_generated="bench") for text in inputs[start:start + 32]]
            rows = runner.run(batch, deadline=deadline)
            for text, row in zip(batch, rows, strict=True):
                if row is None:
                    continue
                ran += 1
                for outcome in row:
                    failure = _HARNESS_FAILURES.get(getattr(outcome, "exit_code", None) or -1)
                    if language == "c" and what == "register values" and failure:
                        return not_executable(failure)
                normal += all(_ending(o)[0] == "ok" for o in row)
                if _ending(row[0]) != _ending(row[1]):
                    return ExecutionResult(
                        ExecutionVerdict.INEQUIVALENT, reason=f"the programs differ on {what}",
                        witness={"input": text.text, "outputs": [_describe(o) for o in row]},
                        inputs=ran, seconds=time.monotonic() - started,
                    )
            if time.monotonic() > deadline:
                break
    finally:
        runner.close()
    # the verdict's one rule: the harness's inputs are its whole input space when every one ran
    ruling = rule(Evidence(inputs=ran, floor=min(len(inputs), DEFAULT_FLOOR), rejected=0,
                           exit_reason=ExitReason.EXHAUSTED if ran == len(inputs) else ExitReason.BUDGET_SECONDS))
    verdict = ExecutionVerdict.TOO_FEW_INPUTS if ruling.verdict is Verdict.TOO_FEW_INPUTS else ExecutionVerdict.NO_DIFFERENCE
    return ExecutionResult(verdict, reason=f"{ran} of {len(inputs)} input(s) of {what} ({normal} ran to a normal end "
                           f"on both), no difference; {ruling.reason}", inputs=ran, seconds=time.monotonic() - started)


def search_difference(
    sources: Sequence[str], examples: Sequence[str], settings: ExecutionSettings, *, validator: str | None = None,
    input_format: Any = None,
) -> ExecutionResult:
    """``divergent.check`` on two Python stdin programs from the statement's samples (``validator``: a
    program that accepts the valid inputs; the others never count; ``input_format``: what inputs are
    made of, a ``divergent.formats`` InputFormat the engines draw and mutate within)."""
    from divergent.kinds.options import SearchOptions
    from divergent.load.whole_programs import load_program_source
    from divergent.records import Budget, TextInput
    from divergent.search import check

    started = time.monotonic()
    try:
        programs = [load_program_source(source, "python", label=f"program {n}") for n, source in
                    enumerate(sources, start=1)]
        options = SearchOptions.of(
            budget=Budget(seconds=settings.budget), seed=settings.seed, isolation=settings.isolation,
            stdin=True, examples=tuple(TextInput(text, how_generated="statement") for text in examples),
            time_limit=settings.timeout, validator=validator, input_format=input_format,
        )
        # unshrunk: the witness is as the engines found it (a judge needs a witness, not the smallest one)
        report = check(programs, options, shrink=False)
    except DivergentError as error:
        return not_executable(f"{type(error).__name__}: {' '.join(str(error).split())[:300]}")
    seconds = time.monotonic() - started
    counterexample = report.counterexample
    witness = None if counterexample is None else {
        "input": counterexample.input.text,  # type: ignore[union-attr]  # whole programs: their stdin
        "outputs": [_describe(o) for o in counterexample.outcomes]}
    return from_report(report, seconds, witness)
