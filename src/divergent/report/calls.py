"""Reports of Python functions' calls: the call ``f(1, [2])``, what each function returned or raised
(and how it left its arguments, what it printed), in JSON, plain text and on a rich terminal.

Renders records only: the kind's rows (:class:`CallRows`) in the frame every report shares
(:mod:`divergent.report.frame`; for ``--json``: :mod:`divergent.report.json`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from divergent.records import Counterexample, Input, Outcome, OutcomeKind, Report
from divergent.report.frame import plain_report, render_report
from divergent.report.json import filter_json, outcomes_json
from divergent.report.presentation import ReportExtras
from divergent.report.text import outcome_text
from divergent.values import encode, json_safe, render

if TYPE_CHECKING:  # rich is imported where a report is drawn: a --json run never loads it
    from rich.console import Console
    from rich.table import Table

_KIND_STYLE = {
    OutcomeKind.RETURNED: "green",
    OutcomeKind.RAISED: "yellow",
    OutcomeKind.TIMEOUT: "magenta",
    OutcomeKind.CRASH: "red",
}


def _mutation_note(counterexample: Counterexample, index: int) -> str:
    outcome = counterexample.outcomes[index]
    if outcome.args_after is None:
        return ""
    before = render(["list", [encode(a) for a in cast(Input, counterexample.input).args]])
    after_args = outcome.args_after[1][0] if isinstance(outcome.args_after, list) else None
    if after_args is None:
        return ""
    after = render(after_args)
    return "" if after == before else f"arguments after the call: {after}"


def call_outcome_json(label: str, outcome: Outcome) -> dict[str, Any]:
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


def call_counterexample_json(cx: Counterexample, labels: Sequence[str]) -> dict[str, Any]:
    call = cast(Input, cx.input)
    return {
        "call": cx.call,
        "args": [json_safe(encode(a)) for a in call.args],
        "kwargs": {k: json_safe(encode(v)) for k, v in call.kwargs.items()},
        "outcomes": outcomes_json(labels, cx.outcomes, cx.classes, CALLS),
        "original_call": cx.original.call(cx.function_name),
        # the calls shrinking moved through after original_call, ending with call
        "shrink_steps": [step.call(cx.function_name) for step in cx.shrink_steps],
        "engine": cx.engine,
        "filter": filter_json(cx.filter),
    }


class CallRows:
    """The rows of calls in the report's frame (:class:`~divergent.report.frame.Rows`)."""

    programs = "implementations"
    runs = "executions"

    def input_headline(self, cx: Counterexample) -> str:
        return f" on {cx.call}"

    def input_lines(self, cx: Counterexample, extras: ReportExtras, *, terminal: bool) -> list[str]:
        return ["", f"  {cx.call}"] if terminal else []

    def plain_rows(self, cx: Counterexample, labels: Sequence[str]) -> list[str]:
        width = max(len(label) for label in labels)
        lines = []
        for label, outcome in zip(labels, cx.outcomes, strict=True):
            lines.append(f"  {label.ljust(width)}  {outcome_text(outcome)}")
            if outcome.stdout:
                lines.append(f"  {''.ljust(width)}  stdout: {outcome.stdout[:200]!r}")
        for i in range(len(cx.outcomes)):
            note = _mutation_note(cx, i)
            if note:
                lines.append(f"  {labels[i].ljust(width)}  {note}")
        return lines

    def table(self, cx: Counterexample, labels: Sequence[str]) -> Table:
        from rich.table import Table
        from rich.text import Text

        table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2))
        table.add_column("implementation")
        table.add_column("class", justify="right")
        table.add_column("outcome")
        class_of = {i: n + 1 for n, members in enumerate(cx.classes) for i in members}
        for i, (label, outcome) in enumerate(zip(labels, cx.outcomes, strict=True)):
            cell = Text(outcome_text(outcome), style=_KIND_STYLE[outcome.kind])
            extra = _mutation_note(cx, i)
            if extra:
                cell.append(f"\n{extra}", style="dim")
            if outcome.stdout:
                cell.append(f"\nstdout: {outcome.stdout[:200]!r}", style="dim")
            table.add_row(label, str(class_of[i]), cell)
        return table


_ROWS = CallRows()


class CallPresentation:
    """How reports write Python functions' calls and outcomes (:class:`~divergent.report.presentation.Presentation`)."""

    def outcome_json(self, label: str, outcome: Outcome, *, first_difference: int | None = None) -> dict[str, Any]:
        return call_outcome_json(label, outcome)

    def counterexample_json(self, cx: Counterexample, labels: Sequence[str], extras: ReportExtras) -> dict[str, Any]:
        return call_counterexample_json(cx, labels)

    def title(self, report: Report) -> str:
        """``normalize: 2 implementations compared`` (the function's name, when a call shows it)."""
        function = report.counterexample.function_name if report.counterexample is not None else ""
        return f"{function + ': ' if function else ''}{len(report.implementations)} implementations compared"

    def plain(self, report: Report, extras: ReportExtras) -> str:
        return plain_report(report, _ROWS, extras)

    def render(self, report: Report, console: Console, extras: ReportExtras) -> None:
        render_report(report, console, _ROWS, extras)


CALLS = CallPresentation()
