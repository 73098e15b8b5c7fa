"""Rendering reports for people: rich terminal output and plain text (the reproducing test is made
by :mod:`divergent.report.reproduce`, the HTML report by :mod:`divergent.report.html`).

Renders stored records only (a :class:`~divergent.records.Report`); it never runs anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from divergent.records import FilterDecision, FilterVerdict, Outcome, OutcomeKind, Report

if TYPE_CHECKING:  # rich is imported where a report is drawn: a --json run never loads it
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table


def outcome_text(outcome: Outcome) -> str:
    """``returned 'SS'``, ``raised ValueError: bad``, ``timeout (exceeded 2 s)``..."""
    if outcome.kind is OutcomeKind.RETURNED:
        text = f"returned {outcome.describe()}"
    elif outcome.kind is OutcomeKind.RAISED:
        text = f"raised {outcome.describe()}"
    else:
        text = f"{outcome.kind.value} ({outcome.describe()})"
    return text


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


def too_few_counts(report: Report) -> str:
    """``3 valid input(s) judged, fewer than 100 (--min-inputs); 12 rejected as invalid``."""
    rejected = f"; {report.rejected:,} rejected as invalid" if report.rejected else ""
    unsettled = report.inputs - report.judged_inputs
    more = f" ({unsettled:,} more run warm or never settled, not counted)" if unsettled > 0 else ""
    return f"{report.judged_inputs:,} valid input(s) judged{more}, fewer than {report.min_inputs} (--min-inputs){rejected}"


def too_few_headline(report: Report) -> str:
    """The headline of a ``too-few-inputs`` verdict, the same on the terminal, under ``--quiet`` and
    in the HTML banner: ``too few inputs to tell: the budget ended before the first input (0 valid
    input(s) judged, fewer than 100 (--min-inputs))``."""
    return f"too few inputs to tell: {report.reason or 'no reason given'} ({too_few_counts(report)})"


def too_few_panel(report: Report, among: str) -> Panel:
    """The terminal's panel of a ``too-few-inputs`` verdict: its headline, then ``among`` (what was
    compared and what it cost)."""
    from rich.panel import Panel
    from rich.text import Text

    headline = too_few_headline(report)
    return Panel(Text.assemble((headline[:1].upper() + headline[1:], "bold yellow"), among), border_style="yellow")


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


def found_text(report: Report, unit: str = "executions") -> str:
    """How a difference was found, for the report's headline: ``found by mutation in 0.6 s, 194
    executions``. A check of more than two programs goes on refining their classes after the first
    difference: then when that was found and what the whole run took, each said for what it is
    (``found by mutation at 0.4 s; 9.9 s in all, refining the classes; 1,234 executions``)."""
    cx = report.counterexample
    engine = cx.engine if cx is not None else "?"
    size = f"{report.executions:,} {unit}"
    if len(report.implementations) <= 2:
        return f"found by {engine} in {report.seconds:.1f} s, {size}"
    first = next((point.seconds for point in report.timeline if any(s.divergences for s in point.engines)), None)
    at = f" at {first:.1f} s" if first is not None else ""
    return f"found by {engine}{at}; {report.seconds:.1f} s in all, refining the classes; {size}"


def print_reproducing_test(console: Console, test: str | None) -> None:
    """The reproducing pytest module after a terminal report: plain text after a heading, no border
    and no wrapping, so it can be copied as it is."""
    if test:
        from rich.text import Text

        console.print(Text("Reproduce with pytest (save in this directory, or use --emit-test FILE):", style="bold"))
        console.out(test, highlight=False)


#: the engines table's columns, and which go first when the terminal is too narrow for them all
_ENGINE_COLUMNS = ("engine", "inputs", "rejected", "novel", "distinct", "since new", "divergent", "restarts", "seconds",
                   "stopped")
_DROPPED_FIRST = ("distinct", "seconds", "since new")


def engines_table(engines: Sequence[Any], width: int = 80) -> tuple[Table, list[str]]:
    """The engines table, fit for ``width`` columns, and the lines to print below it.

    Besides each engine's inputs, new behaviours (``novel``) and divergent inputs, its diversity:
    the distinct behaviours of its inputs and its inputs since it last showed a new one (a long run:
    it was stuck), and (when any was) how often it was restarted with a fresh seed. Why an engine
    stopped can be long: the table shows its first word ("exhausted", "failed"...) and the whole
    reason goes below it, after what a background engine explored on its own (its inputs are only
    what it found); on a narrow terminal the distinct behaviours go first, then the seconds, then
    the inputs since a new behaviour."""
    rows = []
    reasons = []
    for stats in engines:
        short = stats.stopped.split(":", 1)[0].split(" —", 1)[0].strip()
        if getattr(stats, "explored", ""):
            reasons.append(f"{stats.name} explored: {stats.explored}")
        if stats.stopped and stats.stopped != short:
            reasons.append(f"{stats.name} stopped: {stats.stopped}")
        behaviours = getattr(stats, "behaviours", 0)
        rows.append({
            "engine": stats.name, "inputs": f"{stats.inputs:,}", "novel": f"{stats.novel:,}",
            "rejected": f"{getattr(stats, 'rejected', 0):,}",
            "distinct": f"{behaviours:,}" if stats.inputs else "",
            "since new": f"{getattr(stats, 'since_novel', 0):,}" if stats.inputs else "",
            "divergent": f"{stats.divergences:,}", "restarts": f"{getattr(stats, 'restarts', 0):,}",
            "seconds": f"{stats.seconds:.2f}", "stopped": short,
        })
    columns = [c for c in _ENGINE_COLUMNS
               if c not in ("restarts", "rejected") or any(getattr(s, c, 0) for s in engines)]

    def needed(names: list[str], padding: int) -> int:
        # every cell is padded on both sides
        return sum(max([len(name), *(len(row[name]) for row in rows)]) + 2 * padding for name in names)

    padding = 2 if needed(columns, 2) <= width else 1
    for column in _DROPPED_FIRST:
        if needed(columns, padding) <= width:
            break
        columns.remove(column)
    from rich.table import Table

    table = Table(title="engines", box=None, padding=(0, padding), title_justify="left")
    for column in columns:
        table.add_column(column, justify="left" if column in ("engine", "stopped") else "right", no_wrap=True,
                         overflow="ellipsis")
    for row in rows:
        table.add_row(*(row[column] for column in columns))
    return table, reasons


def render_splits(report: Report, function_name: str, console: Console) -> None:
    """Each confirmed input that split the implementations, with what each class did on it."""
    from rich.text import Text

    labels = report.implementations
    for split in report.splits:
        # inputs and outcomes are plain text, never markup (a model may have written them)
        console.print(Text.assemble((split.input.call(function_name, max_length=120), "bold"), " ",
                                    (f"(found by {split.engine})", "dim")))
        if split.filter is not None:
            console.print(Text(f"    filter verdict: {verdict_text(split.filter)}", style="dim"))
        shown: set[str] = set()
        for members in split.classes:
            text = outcome_text(split.outcomes[members[0]])
            if text not in shown:
                shown.add(text)
                console.print(Text(f"    {', '.join(labels[i] for i in members)}: {text}"))
