"""The one frame of a check's report, for every kind of program: the verdict's headline (proven,
too few inputs, the whole space, no difference, or the difference with its input and one row per
program), the behaviour classes and the inputs that split them, the differences set apart (the
spurious filter's and those outside what a claim may rest on), the engines, the sandbox, the
comparison and the seed, the model's usage and the notes; as plain text (``--quiet``, assertion
messages) and on a rich terminal.

A kind supplies only its :class:`Rows`: what its programs and runs are called, how the
counterexample's input reads and one row per program (a call and what it returned, or a program's
stdin and what it printed). The extras (a saved input, the commands that reproduce each run, the
reproducing test) are the caller's (:class:`~divergent.report.presentation.ReportExtras`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from divergent.records import Counterexample, ExitReason, Report
from divergent.report.presentation import ReportExtras
from divergent.report.text import (
    describe_classes,
    engines_table,
    filtered_out_lines,
    found_text,
    llm_usage_text,
    print_reproducing_test,
    proof_text,
    render_splits,
    too_few_headline,
    too_few_panel,
    verdict_text,
)
from divergent.values import printable

if TYPE_CHECKING:  # rich is imported where a report is drawn: a --json run never loads it
    from rich.console import Console
    from rich.table import Table


class Rows(Protocol):
    """What one kind of program puts into the frame."""

    #: the programs compared, in headlines ("implementations", "programs")
    programs: str
    #: one program run on one input ("executions", "runs")
    runs: str

    def input_headline(self, cx: Counterexample) -> str:
        """What follows "... differ" on the plain headline (`` on f(7)``, or nothing)."""
        ...

    def input_lines(self, cx: Counterexample, extras: ReportExtras, *, terminal: bool) -> list[str]:
        """The counterexample's input under the headline (a call, a program's stdin); ``terminal``:
        in the terminal's box (whose headline never holds the input)."""
        ...

    def plain_rows(self, cx: Counterexample, labels: Sequence[str]) -> list[str]:
        """One or more lines per program: what it did on the input (plain text)."""
        ...

    def table(self, cx: Counterexample, labels: Sequence[str]) -> Table:
        """One row per program (its class, what it did) for the terminal."""
        ...


def plain_report(report: Report, rows: Rows, extras: ReportExtras) -> str:
    """The whole report as plain text."""
    among = f"among {len(report.implementations)} {rows.programs}"
    cost = f"{report.executions:,} {rows.runs}, {report.seconds:.1f} s"
    lines = []
    cx = report.counterexample
    if report.proven and report.proof is not None:
        lines.append(f"{proof_text(report)}: {len(report.implementations)} {rows.programs} "
                     f"({report.inputs:,} inputs also run, {report.seconds:.1f} s)")
        lines.extend(f"  {limit}" for limit in report.proof.limits)
    elif cx is None and report.too_few_inputs:
        lines.append(f"{too_few_headline(report)} {among} ({cost}, stopped: {report.exit_reason.value})")
    elif cx is None and report.space is not None:
        lines.append(f"equivalent on all {report.space.inputs:,} valid inputs: {len(report.implementations)} "
                     f"{rows.programs}, {report.space.description} ({cost})")
    elif cx is None:
        interrupted = "interrupted: " if report.exit_reason is ExitReason.INTERRUPTED else ""
        lines.append(f"{interrupted}{_no_difference(report).lower()} {among} ({report.inputs:,} inputs, {cost}, "
                     f"stopped: {report.exit_reason.value})")
    else:
        lines.append(f"{rows.programs} differ{rows.input_headline(cx)}  ({found_text(report, rows.runs)})")
        lines.extend(rows.input_lines(cx, extras, terminal=False))
        lines.extend(rows.plain_rows(cx, report.implementations))
        if cx.filter is not None:
            lines.append(f"filter verdict: {verdict_text(cx.filter)}")
        if len(report.classes) > 2 or len(report.implementations) > 2:
            lines.append("behaviour classes: " + " | ".join(describe_classes(report)))
        if extras.reproduce:
            lines.append("reproduce:")
            lines.extend(f"  {command}" for command in extras.reproduce)
    if report.filtered_out:
        lines.append(f"set apart, not claimed ({len(report.filtered_out)}):")
        lines.extend(f"  {line}" for line in filtered_out_lines(report))
    if report.llm is not None:
        lines.append(llm_usage_text(report.llm))
    lines.extend(f"note: {note}" for note in report.notes)
    return printable("\n".join(lines))  # outputs and values may hold terminal escapes: docs/sandbox.md


def render_report(report: Report, console: Console, rows: Rows, extras: ReportExtras) -> None:
    """The whole report on a rich terminal (control characters escaped: docs/sandbox.md); the
    reproducing test (``extras.test``) is printed after it as plain text to copy."""
    from divergent.report.terminal import escaping

    with escaping(console):
        _render(report, console, rows, extras)


def _no_difference(report: Report) -> str:
    return "No relevant difference found" if report.filtered_out else "No difference found"


def _render(report: Report, console: Console, rows: Rows, extras: ReportExtras) -> None:
    from rich.console import Group
    from rich.padding import Padding
    from rich.panel import Panel
    from rich.text import Text

    count = len(report.implementations)
    cost = f"{report.executions:,} {rows.runs} in {report.seconds:.1f} s"
    cx = report.counterexample
    if report.proven and report.proof is not None:
        console.print(Panel(Group(
            Text.assemble((proof_text(report).capitalize(), "bold green"),
                          f": {count} {rows.programs} behave the same on every input, not only the "
                          f"{report.inputs:,} that were run ({report.seconds:.1f} s)."),
            Text("The claim holds:", style="bold"),
            *(Text(f"  • {limit}") for limit in report.proof.limits),
        ), border_style="green"))
    elif cx is None and report.too_few_inputs:
        console.print(too_few_panel(report, f"; no difference among {count} {rows.programs} in {report.executions:,} {rows.runs}, "
                                            f"{report.seconds:.1f} s (stopped: "
                                            f"{report.exit_reason.value})."))
    elif cx is None and report.space is not None:
        console.print(Panel(Text.assemble(
            (f"Equivalent on all {report.space.inputs:,} valid inputs", "bold green"),
            f": {count} {rows.programs}, {report.space.description} ({cost}).",
        ), border_style="green"))
    elif cx is None:
        console.print(Panel(Text.assemble(
            (_no_difference(report), "bold green"),
            f" among {count} {rows.programs}: {report.inputs:,} inputs, {cost} (stopped: {report.exit_reason.value}).",
        ), border_style="green"))
    else:
        parts: list[Any] = [
            Text.assemble((f"{rows.programs.capitalize()} differ", "bold red"), f"  ({found_text(report, rows.runs)})\n"),
            Text("\n".join(rows.input_lines(cx, extras, terminal=True)), style="bold"), Text(""), rows.table(cx, report.implementations),
        ]
        if cx.original.key != cx.input.key:
            parts.append(Text(f"\nshrunk from {cx.original.call(cx.function_name, max_length=80)}", style="dim"))
        if cx.filter is not None:
            parts.append(Text.assemble("\n", ("filter verdict: ", "bold"), verdict_text(cx.filter)))
        console.print(Panel(Group(*parts), border_style="red"))
        _print_commands(console, extras.reproduce)
        print_reproducing_test(console, extras.test)
        if count > 2:
            console.print(f"[bold]{len(report.classes)} behaviour classes:[/bold] " + " | ".join(describe_classes(report)))
            if len(report.splits) > 1:
                console.print("inputs that split them:")
                render_splits(report, cx.function_name, console)
    if report.filtered_out:
        console.print(f"[bold]{len(report.filtered_out)} difference(s) set apart, not claimed[/bold] "
                      "[dim](judged irrelevant by the filter, or outside what a claim may rest on)[/dim]")
        for line in filtered_out_lines(report):
            console.print(Text(f"    {line}", style="dim"))
    engines, reasons = engines_table(report.engines, console.width)
    console.print(engines)
    for reason in reasons:
        console.print(Padding(Text(reason, style="dim"), (0, 0, 0, 2)))
    console.print(f"[dim]sandbox: {report.isolation} · comparison: {report.policy} · seed: {report.seed}[/dim]")
    if report.llm is not None:
        console.print(f"[dim]{llm_usage_text(report.llm)}[/dim]")
    for note in report.notes:
        console.print(Text.assemble(("note: ", "yellow"), note))  # a note may quote a model: never markup


def _print_commands(console: Console, commands: Sequence[str]) -> None:
    """The commands that run each program on the input, after the report's box: one per line,
    never wrapped or boxed, so each can be copied whole at any width."""
    if commands:
        from rich.text import Text

        console.print(Text("Reproduce (each program on the saved input):", style="bold"))
        for command in commands:
            console.out(command, highlight=False)
