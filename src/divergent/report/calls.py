"""Reports of Python functions' calls: the call ``f(1, [2])``, what each function returned or raised
(and how it left its arguments, what it printed), in JSON, plain text and on a rich terminal.

Renders records only; the frame every report shares (engines, notes, filter verdicts) comes from
:mod:`divergent.report.text` and :mod:`divergent.report.json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from divergent.records import Counterexample, ExitReason, Input, Outcome, OutcomeKind, Report
from divergent.report.json import filter_json, outcomes_json
from divergent.report.presentation import ReportExtras
from divergent.report.text import (
    describe_classes,
    engines_table,
    filtered_out_lines,
    found_text,
    llm_usage_text,
    outcome_text,
    print_reproducing_test,
    proof_text,
    render_splits,
    too_few_headline,
    too_few_panel,
    verdict_text,
)
from divergent.values import encode, json_safe, printable, render

if TYPE_CHECKING:  # rich is imported where a report is drawn: a --json run never loads it
    from rich.console import Console

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


def _plain(report: Report) -> str:
    lines = []
    if report.proven and report.proof is not None:
        lines.append(
            f"{proof_text(report)}: {len(report.implementations)} implementations "
            f"({report.inputs:,} inputs also run, {report.seconds:.1f} s)"
        )
        lines.extend(f"  {limit}" for limit in report.proof.limits)
    elif report.counterexample is None and report.too_few_inputs:
        lines.append(f"{too_few_headline(report)} among {len(report.implementations)} implementations "
                     f"({report.executions:,} executions, {report.seconds:.1f} s, stopped: {report.exit_reason.value})")
    elif report.counterexample is None and report.space is not None:
        lines.append(f"equivalent on all {report.space.inputs:,} valid inputs: {len(report.implementations)} "
                     f"implementations, {report.space.description} ({report.executions:,} executions, "
                     f"{report.seconds:.1f} s)")
    elif report.counterexample is None:
        relevant = " relevant" if report.filtered_out else ""
        interrupted = "interrupted: " if report.exit_reason is ExitReason.INTERRUPTED else ""
        lines.append(
            f"{interrupted}no{relevant} difference found among {len(report.implementations)} implementations "
            f"({report.inputs:,} inputs, {report.executions:,} executions, {report.seconds:.1f} s, "
            f"stopped: {report.exit_reason.value})"
        )
    else:
        cx = report.counterexample
        lines.append(
            f"implementations differ on {cx.call}  ({found_text(report)})"
        )
        width = max(len(label) for label in report.implementations)
        for label, outcome in zip(report.implementations, cx.outcomes, strict=True):
            lines.append(f"  {label.ljust(width)}  {outcome_text(outcome)}")
            if outcome.stdout:
                lines.append(f"  {''.ljust(width)}  stdout: {outcome.stdout[:200]!r}")
        for i in range(len(cx.outcomes)):
            note = _mutation_note(cx, i)
            if note:
                lines.append(f"  {report.implementations[i].ljust(width)}  {note}")
        if cx.filter is not None:
            lines.append(f"filter verdict: {verdict_text(cx.filter)}")
        if len(report.classes) > 2 or len(report.implementations) > 2:
            lines.append("behaviour classes: " + " | ".join(describe_classes(report)))
    if report.filtered_out:
        lines.append(f"filtered out as irrelevant ({len(report.filtered_out)}):")
        lines.extend(f"  {line}" for line in filtered_out_lines(report))
    if report.llm is not None:
        lines.append(llm_usage_text(report.llm))
    for note in report.notes:
        lines.append(f"note: {note}")
    return printable("\n".join(lines))


def _render(report: Report, console: Console, test: str | None) -> None:
    from rich.console import Group
    from rich.padding import Padding
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    if report.proven and report.proof is not None:
        console.print(
            Panel(
                Group(
                    Text.assemble(
                        (proof_text(report).capitalize(), "bold green"),
                        f": {len(report.implementations)} implementations behave the same on every input, "
                        f"not only the {report.inputs:,} that were run ({report.seconds:.1f} s).",
                    ),
                    Text("The claim holds:", style="bold"),
                    *(Text(f"  • {limit}") for limit in report.proof.limits),
                ),
                border_style="green",
            )
        )
    elif report.counterexample is None and report.too_few_inputs:
        console.print(too_few_panel(report, f" among {len(report.implementations)} implementations: "
                                            f"{report.executions:,} executions in {report.seconds:.1f} s (stopped: "
                                            f"{report.exit_reason.value})."))
    elif report.counterexample is None and report.space is not None:
        console.print(Panel(Text.assemble(
            (f"Equivalent on all {report.space.inputs:,} valid inputs", "bold green"),
            f": {len(report.implementations)} implementations, {report.space.description} "
            f"({report.executions:,} executions in {report.seconds:.1f} s).",
        ), border_style="green"))
    elif report.counterexample is None:
        console.print(
            Panel(
                Text.assemble(
                    ("No relevant difference found" if report.filtered_out else "No difference found", "bold green"),
                    f" among {len(report.implementations)} implementations: {report.inputs:,} inputs, "
                    f"{report.executions:,} executions in {report.seconds:.1f} s "
                    f"(stopped: {report.exit_reason.value}).",
                ),
                border_style="green",
            )
        )
    else:
        cx = report.counterexample
        table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2))
        table.add_column("implementation")
        table.add_column("class", justify="right")
        table.add_column("outcome")
        class_of = {i: n + 1 for n, members in enumerate(cx.classes) for i in members}
        for i, (label, outcome) in enumerate(zip(report.implementations, cx.outcomes, strict=True)):
            cell = Text(outcome_text(outcome), style=_KIND_STYLE[outcome.kind])
            extra = _mutation_note(cx, i)
            if extra:
                cell.append(f"\n{extra}", style="dim")
            if outcome.stdout:
                cell.append(f"\nstdout: {outcome.stdout[:200]!r}", style="dim")
            table.add_row(label, str(class_of[i]), cell)
        header = Text.assemble(
            ("Implementations differ", "bold red"),
            f"  ({found_text(report)})\n\n",
            ("  " + cx.call, "bold"),
        )
        parts: list = [header, Text(""), table]
        if cx.original.key != cx.input.key:
            parts.append(Text(f"\nshrunk from {cx.original.call(cx.function_name, max_length=80)}", style="dim"))
        if cx.filter is not None:
            parts.append(Text.assemble("\n", ("filter verdict: ", "bold"), verdict_text(cx.filter)))
        console.print(Panel(Group(*parts), border_style="red"))
        print_reproducing_test(console, test)
        if len(report.implementations) > 2:
            console.print(f"[bold]{len(report.classes)} behaviour classes:[/bold] " + " | ".join(describe_classes(report)))
            if len(report.splits) > 1:
                console.print("inputs that split them:")
                render_splits(report, cx.function_name, console)
    if report.filtered_out:
        console.print(
            f"[bold]{len(report.filtered_out)} difference(s) filtered out as irrelevant[/bold] "
            "[dim](judged spurious by the filter; --no-filter counts them)[/dim]"
        )
        for line in filtered_out_lines(report):
            console.print(Text(f"    {line}", style="dim"))
    engines, reasons = engines_table(report.engines, console.width)
    console.print(engines)
    for reason in reasons:
        console.print(Padding(Text(reason, style="dim"), (0, 0, 0, 2)))
    console.print(f"[dim]sandbox: {report.isolation} · policy: {report.policy} · seed: {report.seed}[/dim]")
    if report.llm is not None:
        console.print(f"[dim]{llm_usage_text(report.llm)}[/dim]")
    for note in report.notes:
        console.print(Text.assemble(("note: ", "yellow"), note))  # a note may quote a model: never markup


class CallPresentation:
    """How reports write Python functions' calls and outcomes (:class:`~divergent.report.presentation.Presentation`)."""

    def outcome_json(self, label: str, outcome: Outcome, *, first_difference: int | None = None) -> dict[str, Any]:
        return call_outcome_json(label, outcome)

    def counterexample_json(self, cx: Counterexample, labels: Sequence[str], extras: ReportExtras) -> dict[str, Any]:
        return call_counterexample_json(cx, labels)

    def plain(self, report: Report, extras: ReportExtras) -> str:
        return _plain(report)

    def render(self, report: Report, console: Console, extras: ReportExtras) -> None:
        from divergent.report.terminal import escaping

        with escaping(console):
            _render(report, console, extras.test)


CALLS = CallPresentation()
