"""Rendering reports for people: rich terminal output and plain text (the reproducing test is made
by :mod:`divergent.report.reproduce`, the HTML report by :mod:`divergent.report.html`).

Renders stored records only (a :class:`~divergent.model.Report`); it never runs anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from divergent.model import Counterexample, FilterDecision, FilterVerdict, Outcome, OutcomeKind, Report
from divergent.programs import PythonFunction
from divergent.report.programs import is_program_report, plain_program_report
from divergent.report.reproduce import reproduction_test
from divergent.report.terminal import escaping
from divergent.values import encode, printable, render

_KIND_STYLE = {
    OutcomeKind.RETURNED: "green",
    OutcomeKind.RAISED: "yellow",
    OutcomeKind.TIMEOUT: "magenta",
    OutcomeKind.CRASH: "red",
}


def outcome_text(outcome: Outcome) -> str:
    """``returned 'SS'``, ``raised ValueError: bad``, ``timeout (exceeded 2 s)``..."""
    if outcome.kind is OutcomeKind.RETURNED:
        text = f"returned {outcome.describe()}"
    elif outcome.kind is OutcomeKind.RAISED:
        text = f"raised {outcome.describe()}"
    else:
        text = f"{outcome.kind.value} ({outcome.describe()})"
    return text


def _mutation_note(counterexample: Counterexample, index: int) -> str:
    outcome = counterexample.outcomes[index]
    if outcome.args_after is None:
        return ""
    before = render(["list", [encode(a) for a in counterexample.input.args]])
    after_args = outcome.args_after[1][0] if isinstance(outcome.args_after, list) else None
    if after_args is None:
        return ""
    after = render(after_args)
    return "" if after == before else f"arguments after the call: {after}"


def verdict_text(verdict: FilterVerdict) -> str:
    """``IMPORTANT — negative counts (filter: gpt-4o-mini)``; says so when there was no verdict."""
    if verdict.differences in (FilterDecision.IMPORTANT, FilterDecision.IRRELEVANT):
        decision = verdict.differences.value
    else:
        decision = "kept, not judged" if verdict.differences is FilterDecision.UNJUDGED else "kept, unreadable verdict"
    return f"{decision} — {verdict.rationale} (filter: {verdict.model})"


def filtered_out_lines(report: Report) -> list[str]:
    """One line per difference the filter judged irrelevant: the call, what each class did, and why."""
    lines = []
    for cx in report.filtered_out:
        shown = " | ".join(
            f"{', '.join(report.implementations[i] for i in members)}: {outcome_text(cx.outcomes[members[0]])}"
            for members in cx.classes
        )
        rationale = cx.filter.rationale if cx.filter is not None else ""
        lines.append(f"{cx.input.call(cx.function_name, max_length=80)}  ({shown})  — {rationale}")
    return lines


def describe_classes(report: Report) -> list[str]:
    return [" = ".join(report.implementations[i] for i in members) for members in report.classes]


def llm_usage_text(llm: Mapping[str, Any]) -> str:
    """One line of what the language model cost in a run: calls, tokens, dollars."""
    tokens = int(llm.get("prompt_tokens", 0)) + int(llm.get("completion_tokens", 0))
    cached = f" (+{llm['cached_calls']} cached)" if llm.get("cached_calls") else ""
    retries = f", {llm['retries']} retries" if llm.get("retries") else ""
    return (
        f"LLM {llm.get('model', '?')}: {llm.get('calls', 0)} calls{cached}, {tokens:,} tokens, "
        f"${float(llm.get('cost', 0.0)):.4f}, {float(llm.get('seconds', 0.0)):.1f} s{retries}"
    )


def proof_text(report: Report) -> str:
    """``proven equivalent (symbolic, 6 paths)``."""
    proof = report.proof
    assert proof is not None
    return f"proven equivalent ({proof.engine}, {proof.paths} paths)"


def plain_report(report: Report) -> str:
    """The report as plain text (used in AssertionErrors and ``--quiet`` failures)."""
    if is_program_report(report):
        return plain_program_report(report)
    lines = []
    if report.proven and report.proof is not None:
        lines.append(
            f"{proof_text(report)}: {len(report.implementations)} implementations "
            f"({report.inputs} inputs also run, {report.seconds:.1f} s)"
        )
        lines.extend(f"  {limit}" for limit in report.proof.limits)
    elif report.counterexample is None:
        relevant = " relevant" if report.filtered_out else ""
        lines.append(
            f"no{relevant} difference found among {len(report.implementations)} implementations "
            f"({report.inputs} inputs, {report.executions} executions, {report.seconds:.1f} s, "
            f"stopped: {report.exit_reason.value})"
        )
    else:
        cx = report.counterexample
        lines.append(
            f"implementations differ on {cx.call}  (found by {cx.engine} in {report.seconds:.1f} s, "
            f"{report.executions} executions)"
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


def render_report(
    report: Report, console: Console, implementations: Sequence[PythonFunction] = (), *, test: str | None = None
) -> None:
    """Rich terminal rendering of a check report (control characters escaped: docs/sandbox.md); with a
    counterexample, the reproducing pytest module (``test``, or one made from ``implementations``)
    follows as plain text to copy."""
    with escaping(console):
        _render_report(report, console, implementations, test=test)


def _render_report(
    report: Report, console: Console, implementations: Sequence[PythonFunction], *, test: str | None
) -> None:
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
            f"  (found by {cx.engine} in {report.seconds:.1f} s, {report.executions:,} executions)\n\n",
            ("  " + cx.call, "bold"),
        )
        parts: list = [header, Text(""), table]
        if cx.original.key != cx.input.key:
            parts.append(Text(f"\nshrunk from {cx.original.call(cx.function_name, max_length=80)}", style="dim"))
        if cx.filter is not None:
            parts.append(Text.assemble("\n", ("filter verdict: ", "bold"), verdict_text(cx.filter)))
        console.print(Panel(Group(*parts), border_style="red"))
        if test is None and implementations:
            test = reproduction_test(cx, implementations)
        if test:
            # Plain text after a heading, no border and no wrapping, so it can be copied as it is.
            console.print(Text("Reproduce with pytest (save in this directory, or use --emit-test FILE):",
                               style="bold"))
            console.out(test, highlight=False)
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
        console.print(f"[yellow]note:[/yellow] {note}")


def engines_table(engines: Sequence[Any], width: int = 80) -> tuple[Table, list[str]]:
    """The engines table, fit for ``width`` columns, and the lines to print below it.

    Why an engine stopped can be long: the table shows its first word ("exhausted", "failed"...)
    and the whole reason goes below it, after what a background engine explored on its own (its
    inputs are only what it found); on a narrow terminal the seconds column goes first."""
    table = Table(title="engines", box=None, padding=(0, 2 if width >= 70 else 1), title_justify="left")
    columns = ["engine", "inputs", "novel", "divergent", "seconds", "stopped"]
    if width < 60:
        columns.remove("seconds")
    for column in columns:
        table.add_column(column, justify="left" if column in ("engine", "stopped") else "right", no_wrap=True,
                         overflow="ellipsis")
    reasons = []
    for stats in engines:
        short = stats.stopped.split(":", 1)[0].split(" —", 1)[0].strip()
        if getattr(stats, "explored", ""):
            reasons.append(f"{stats.name} explored: {stats.explored}")
        if stats.stopped and stats.stopped != short:
            reasons.append(f"{stats.name} stopped: {stats.stopped}")
        cells = {
            "engine": stats.name, "inputs": f"{stats.inputs:,}", "novel": f"{stats.novel:,}",
            "divergent": f"{stats.divergences:,}", "seconds": f"{stats.seconds:.2f}", "stopped": short,
        }
        table.add_row(*(cells[column] for column in columns))
    return table, reasons


def render_splits(report: Report, function_name: str, console: Console) -> None:
    """Each confirmed input that split the implementations, with what each class did on it."""
    labels = report.implementations
    for split in report.splits:
        console.print(f"[bold]{split.input.call(function_name, max_length=120)}[/bold] [dim](found by {split.engine})[/dim]")
        if split.filter is not None:
            console.print(Text(f"    filter verdict: {verdict_text(split.filter)}", style="dim"))
        shown: set[str] = set()
        for members in split.classes:
            text = outcome_text(split.outcomes[members[0]])
            if text not in shown:
                shown.add(text)
                console.print(f"    {', '.join(labels[i] for i in members)}: {text}")
