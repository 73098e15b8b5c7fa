"""How a diff's result is written, from its JSON document (``divergent diff --json``): the table
(function, verdict, counterexample, time) that fits 80 columns, GitHub Actions annotations on each
changed function's line, and the HTML report (a section per function)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from divergent.report.blocks import Banner, Code, Facts, Page, Paragraph, Section, Table
from divergent.report.pages import counterexample_section, duration_text, shrinking_section

__all__ = ["diff_headline", "diff_page", "diff_rows", "github_annotations", "render_diff_table"]

Document = Mapping[str, Any]

#: how each status reads in the table
_VERDICTS = {
    "changed": "CHANGED", "same": "same", "proven-same": "proven same", "same-on-all-inputs": "same on all inputs", "too-few-inputs": "too few inputs",
    "error": "error", "skipped": "skipped", "not-run": "not run", "added": "added", "removed": "removed",
}


def _counterexample(record: Mapping[str, Any]) -> str:
    cx = record.get("counterexample")
    if not cx:
        return str(record.get("note") or record.get("reason") or "")
    values = [str(outcome.get("value", "")) for outcome in cx.get("outcomes", ())]
    return f"{cx.get('call', '')} → {' ≠ '.join(values)}"


def diff_rows(document: Document) -> list[tuple[str, str, str, str]]:
    """(function, verdict, counterexample or reason, time) per function."""
    rows = []
    for record in document.get("functions", ()):
        seconds = float(record.get("seconds") or 0.0)
        rows.append((str(record["function"]), _VERDICTS.get(record["status"], record["status"]),
                     _counterexample(record), f"{seconds:.1f}s" if seconds else ""))
    return rows


def diff_headline(document: Document) -> str:
    summary = document.get("summary", {})
    old, new = document["old"]["name"], document["new"]["name"]
    parts = [f"{summary.get('changed', 0)} changed", f"{summary.get('same', 0) + summary.get('proven-same', 0) + summary.get('same-on-all-inputs', 0)} same"]
    for status in ("too-few-inputs", "error", "skipped", "not-run", "added", "removed"):
        if summary.get(status):
            parts.append(f"{summary[status]} {_VERDICTS[status]}")
    tail = f"; {summary.get('untouched', 0)} untouched"
    if summary.get("tests_not_compared"):
        tail += f", {summary['tests_not_compared']} test functions not compared"
    return f"{old} → {new}: {', '.join(parts)}{tail} ({document.get('seconds', 0):.1f} s)"


def render_diff_table(document: Document, console: Any) -> None:
    """The table on a rich console (80 columns or the terminal's width, cells folded)."""
    from rich.table import Table as RichTable
    from rich.text import Text

    styles = {"CHANGED": "bold red", "same": "green", "proven same": "green", "same on all inputs": "green"}
    table = RichTable(expand=False, show_lines=False, pad_edge=False)
    table.add_column("function", overflow="fold", ratio=3)
    table.add_column("verdict", no_wrap=True)
    table.add_column("counterexample / why", overflow="fold", ratio=4)
    table.add_column("time", justify="right", no_wrap=True)
    for function, verdict, detail, seconds in diff_rows(document):
        table.add_row(Text(function), Text(verdict, style=styles.get(verdict, "yellow")), Text(detail), seconds)
    if document.get("functions"):
        console.print(table)
    for note in document.get("notes", ()):
        console.print(Text(f"note: {note}", style="dim"))
    console.print(Text(diff_headline(document)))


def _escape_property(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_annotations(document: Document) -> list[str]:
    """GitHub Actions workflow commands: a warning on the line of each function that changed
    behaviour, a notice on each that could not be judged."""
    lines = []
    for record in document.get("functions", ()):
        status = record["status"]
        where = f"file={_escape_property(str(record['file']))},line={int(record['line'])}"
        if status == "changed":
            title = _escape_property(f"divergent: {record['qualname']} changed behaviour")
            lines.append(f"::warning {where},title={title}::{_escape_data(_counterexample(record))}")
        elif status in ("too-few-inputs", "error", "skipped", "not-run"):
            title = _escape_property(f"divergent: {record['qualname']} not judged")
            lines.append(f"::notice {where},title={title}::{_escape_data(_VERDICTS[status] + ': ' + _counterexample(record))}")
    return lines


def _function_section(record: Mapping[str, Any], index: int, tests: Sequence[str | None]) -> list[Section]:
    facts = [("status", _VERDICTS.get(record["status"], record["status"])), ("why", str(record.get("why", ""))),
             ("file", f"{record['file']}:{record['line']}")]
    if record.get("old"):
        facts.append(("old", str(record["old"])))
        facts.append(("new", str(record["new"])))
    if record.get("note"):
        facts.append(("note", str(record["note"])))
    if record.get("reason") and record.get("reason") != record.get("note"):
        facts.append(("reason", str(record["reason"])))
    if record.get("seconds"):
        facts.append(("time", duration_text(float(record["seconds"]))))
    if record.get("inputs") is not None:
        facts.append(("inputs judged", str(record.get("inputs"))))
    blocks: list[Any] = [Facts(tuple(facts))]
    cx = record.get("counterexample")
    sections = [Section(str(record["function"]), tuple(blocks), id=f"function-{index}")]
    if cx:
        sections.append(replace(counterexample_section(cx), id=f"counterexample-{index}"))
        if cx.get("shrink_steps"):
            sections.append(replace(shrinking_section(cx), id=f"shrinking-{index}"))
    test = tests[index] if index < len(tests) else None
    if test:
        sections.append(Section("Reproduce", (Code(test, caption="a pytest module (--emit-test DIR writes it)",
                                                   language="python"),), id=f"reproduce-{index}"))
    return sections


def diff_page(document: Document, *, tests: Sequence[str | None] = ()) -> Page:
    """The HTML report of a diff: the table, then a section per function (its counterexample side
    by side and its reproducing test when it changed); ``tests``: each function's test, in order."""
    summary = document.get("summary", {})
    changed = summary.get("changed", 0)
    unjudged = sum(summary.get(s, 0) for s in ("too-few-inputs", "error", "skipped", "not-run"))
    tone = "bad" if changed else "warn" if unjudged else "good"
    headline = (f"{changed} function(s) changed behaviour" if changed else
                f"no change found; {unjudged} function(s) not judged" if unjudged else "no function changed behaviour")
    rows = diff_rows(document)
    table = Table.of(("function", "verdict", "counterexample / why", "time"), rows)
    sections = [Section("Functions", (table,), id="functions")]
    if document.get("notes"):
        sections.append(Section("Notes", tuple(Paragraph(str(n), tone="warn") for n in document["notes"]), id="notes"))
    for index, record in enumerate(document.get("functions", ())):
        if record["status"] in ("added", "removed"):
            continue
        sections.extend(_function_section(record, index, tests))
    return Page(kind="diff", title=f"divergent diff {document['old']['name']} → {document['new']['name']}",
                subtitle=diff_headline(document), banner=Banner(headline, tone=tone), sections=tuple(sections))
