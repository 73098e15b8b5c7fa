"""Reports of whole programs (stdin to stdout): the input, each program's output with the first
differing token marked, how each run ended, and the command lines that reproduce it.

Renders records only: the kind's rows (:class:`RunRows`) in the frame every report shares
(:mod:`divergent.report.frame`). The caller (the program's kind, for the command line) writes the input to a
file when it wants one (:func:`save_input`) and passes its path, and the commands that reproduce each
run, in :class:`~divergent.report.presentation.ReportExtras`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from divergent import paths
from divergent.records import AnyInput, Counterexample, Outcome, OutcomeKind, Report, TextInput
from divergent.report.frame import plain_report, render_report
from divergent.report.presentation import ReportExtras
from divergent.text_comparison import OutputComparison

if TYPE_CHECKING:  # rich is imported where a report is drawn: a --json run never loads it
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

#: inputs up to this many lines and characters are shown inline
INLINE_LINES = 20
INLINE_CHARS = 1_500
#: output kept in JSON and shown in reports, per program
SHOWN_OUTPUT = 64 * 1024
SHOWN_STDERR = 2_000
_TOKENS = OutputComparison()
_KIND_STYLE = {
    OutcomeKind.OK: "green",
    OutcomeKind.RUNTIME_ERROR: "red",
    OutcomeKind.TIMEOUT: "magenta",
    OutcomeKind.MEMORY_LIMIT: "yellow",
    OutcomeKind.OUTPUT_LIMIT: "yellow",
    OutcomeKind.CRASH: "red",
}


def shown_inline(item: TextInput) -> bool:
    return item.text.count("\n") <= INLINE_LINES and len(item.text) <= INLINE_CHARS


def _cut(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)


def status_text(outcome: Outcome) -> str:
    """``ok, exit 0, 0.01 s`` / ``runtime-error, signal SIGSEGV, 0.02 s``..."""
    parts = [outcome.kind.value]
    if outcome.status:
        parts.append(outcome.status)
    if outcome.kind is not OutcomeKind.OK and outcome.detail and outcome.detail not in parts[-1]:
        parts.append(outcome.detail)
    parts.append(f"{outcome.seconds:.3f} s")
    if outcome.memory_kb:
        parts.append(f"{outcome.memory_kb / 1024:.0f} MiB")
    return ", ".join(parts)


def first_difference(outcomes: Sequence[Outcome], index: int) -> int | None:
    """The first token where program ``index``'s output differs from the first printed output of
    another class (None when it printed nothing or agrees)."""
    outcome = outcomes[index]
    if outcome.kind is not OutcomeKind.OK:
        return None
    for other in outcomes:
        if other is outcome or other.kind is not OutcomeKind.OK:
            continue
        at = _TOKENS.first_difference(other.stdout, outcome.stdout)
        if at is not None:
            return at
    return None


def marked_output(text: str, at: int | None, limit: int = 400) -> Text:
    """The output on one line (newlines shown as ⏎), the first differing token marked ⟦so⟧ (red
    on a terminal)."""
    from rich.text import Text

    tokens = text.split()
    shown = Text()
    if at is None or at >= len(tokens):
        flat = " ⏎ ".join(line for line in text.splitlines())
        shown.append(flat[:limit] + ("…" if len(flat) > limit else ""))
        if at is not None:
            shown.append(" ⟨ends here⟩", style="bold red")
        return shown
    before = " ".join(tokens[:at])
    if len(before) > limit // 2:
        before = "…" + before[-(limit // 2) :]
    shown.append(before + (" " if before else ""))
    shown.append(f"⟦{tokens[at]}⟧", style="bold red")
    after = " ".join(tokens[at + 1 :])
    if after:
        shown.append(" " + after[: limit // 2] + ("…" if len(after) > limit // 2 else ""))
    return shown


# -- JSON ---------------------------------------------------------------------------------------


def program_outcome_json(label: str, outcome: Outcome, first_differing_token: int | None = None) -> dict[str, Any]:
    stdout, truncated = _cut(outcome.stdout, SHOWN_OUTPUT)
    data: dict[str, Any] = {"impl": label, "kind": outcome.kind.value, "value": outcome.describe()}
    data["stdout"] = stdout
    if truncated:
        data["stdout_truncated"] = True
    if outcome.signal:
        data["signal"] = outcome.signal
    else:
        data["exit_code"] = outcome.exit_code
    data["seconds"] = round(outcome.seconds, 6)
    if outcome.memory_kb is not None:
        data["memory_kb"] = outcome.memory_kb
    if outcome.stderr:
        data["stderr"] = _cut(outcome.stderr, SHOWN_STDERR)[0]
    if outcome.detail:
        data["detail"] = outcome.detail
    if first_differing_token is not None:
        data["first_difference"] = first_differing_token
    return data


def program_counterexample_json(cx: Counterexample, labels: Sequence[str], *, input_file: str | None = None,
                                reproduce: Sequence[str] = ()) -> dict[str, Any]:
    original = cast(TextInput, cx.original)
    class_of = {i: number for number, members in enumerate(cx.classes, 1) for i in members}
    return {
        "call": cx.input.call(""),
        "stdin": _text(cx.input),
        "input_file": input_file,
        "outcomes": [
            {**program_outcome_json(label, outcome, first_difference(cx.outcomes, i)), "class": class_of.get(i)}
            for i, (label, outcome) in enumerate(zip(labels, cx.outcomes, strict=True))
        ],
        "original_stdin": original.text,
        "original_call": original.call(),
        # the inputs shrinking moved through after original_stdin, ending with stdin
        "shrink_steps": [_text(step) for step in cx.shrink_steps],
        "engine": cx.engine,
        "reproduce": list(reproduce),
        "filter": None if cx.filter is None else {
            "relevant": cx.filter.relevant, "rationale": cx.filter.rationale,
            "differences": cx.filter.differences.value, "model": cx.filter.model,
        },
    }


def _text(item: AnyInput) -> str:
    return cast(TextInput, item).text


# -- text -----------------------------------------------------------------------------------------


def input_lines(item: TextInput, input_file: str | None) -> list[str]:
    lines = item.text.splitlines()
    head = f"input ({len(lines)} line{'s' if len(lines) != 1 else ''}, {len(item.text):,} characters)"
    if shown_inline(item):
        return [f"{head}:", *(f"    {line}" for line in lines)] + ([] if item.text.endswith("\n") or not item.text
                                                                   else ["    (no newline at the end)"])
    where = f" in {input_file}" if input_file else ""
    preview = [f"    {line[:120]}" for line in lines[:5]]
    return [f"{head}{where}; it begins:", *preview, "    …"]


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


class RunRows:
    """The rows of whole programs' runs in the report's frame (:class:`~divergent.report.frame.Rows`)."""

    programs = "programs"
    runs = "runs"

    def input_headline(self, cx: Counterexample) -> str:
        return ""

    def input_lines(self, cx: Counterexample, extras: ReportExtras, *, terminal: bool) -> list[str]:
        return input_lines(cast(TextInput, cx.input), extras.input_file)

    def plain_rows(self, cx: Counterexample, labels: Sequence[str]) -> list[str]:
        width = max(len(label) for label in labels)
        lines = []
        for i, (label, outcome) in enumerate(zip(labels, cx.outcomes, strict=True)):
            lines.append(f"  {label.ljust(width)}  {status_text(outcome)}")
            if outcome.kind is OutcomeKind.OK or outcome.stdout:
                lines.append(f"  {''.ljust(width)}  stdout: {marked_output(outcome.stdout, first_difference(cx.outcomes, i)).plain}")
            if outcome.kind is not OutcomeKind.OK and outcome.stderr:
                lines.append(f"  {''.ljust(width)}  stderr: {_last_line(outcome.stderr)}")
        return lines

    def table(self, cx: Counterexample, labels: Sequence[str]) -> Table:
        from rich.table import Table
        from rich.text import Text

        table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2))
        table.add_column("program", overflow="fold")
        table.add_column("class", justify="right")
        table.add_column("how it ended")
        table.add_column("output (first difference marked)")
        class_of = {i: n + 1 for n, members in enumerate(cx.classes) for i in members}
        for i, (label, outcome) in enumerate(zip(labels, cx.outcomes, strict=True)):
            shown = marked_output(outcome.stdout, first_difference(cx.outcomes, i))
            if outcome.kind is not OutcomeKind.OK and outcome.stderr:
                shown.append(f"\nstderr: {_last_line(outcome.stderr)}", style="dim")
            table.add_row(label, str(class_of[i]), Text(status_text(outcome), style=_KIND_STYLE.get(outcome.kind, "")),
                          shown)
        return table


_ROWS = RunRows()


# -- the presentation ---------------------------------------------------------------------------


class RunPresentation:
    """How reports write whole programs' inputs (their stdin) and runs
    (:class:`~divergent.report.presentation.Presentation`)."""

    def outcome_json(self, label: str, outcome: Outcome, *, first_difference: int | None = None) -> dict[str, Any]:
        return program_outcome_json(label, outcome, first_difference)

    def counterexample_json(self, cx: Counterexample, labels: Sequence[str], extras: ReportExtras) -> dict[str, Any]:
        return program_counterexample_json(cx, labels, input_file=extras.input_file, reproduce=extras.reproduce)

    def title(self, report: Report) -> str:
        """``sum.py vs sum_wrong.cpp``: whole programs and commands, whose call is their input, are
        named by their files (a command by its text)."""
        names = [_short_name(label) for label in report.implementations]
        if len(names) == 2:
            return f"{names[0]} vs {names[1]}"
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        return f"{shown}: {len(names)} programs compared"

    def plain(self, report: Report, extras: ReportExtras) -> str:
        return plain_report(report, _ROWS, extras)

    def render(self, report: Report, console: Console, extras: ReportExtras) -> None:
        render_report(report, console, _ROWS, extras)


RUNS = RunPresentation()


def _short_name(label: str) -> str:
    """A program's file name (``sum.py`` of ``/tmp/x/sum.py``); a command's text as it is."""
    if label.startswith("cmd:"):
        return label
    return label.rstrip("/").rsplit("/", 1)[-1] or label


def saved_inputs_dir() -> Path:
    """Where counterexamples' inputs are saved: the ``inputs`` cache (:func:`divergent.paths.cache_dir`)."""
    return paths.cache_dir("inputs")


def save_input(item: TextInput) -> str | None:
    """Write the input to ``HASH.txt`` in :func:`saved_inputs_dir`; its path (None if it
    cannot be written)."""
    data = item.text.encode("utf-8", "surrogateescape")
    path = saved_inputs_dir() / f"{hashlib.sha256(data).hexdigest()[:16]}.txt"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_bytes(data)
    except OSError:
        return None
    return str(path)
