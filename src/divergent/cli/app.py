"""The ``divergent`` application object and what every command shares: the exit codes (a contract),
one-line input errors, the stderr console, the live progress line."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console

from divergent.errors import DivergentError

app = typer.Typer(
    name="divergent",
    help="Find where programs that should behave the same do not.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_SAME, EXIT_DIVERGENT, EXIT_ERROR = 0, 1, 2


def fail(message: str, *, as_json: bool = False) -> typer.Exit:
    """Report an input error the contract's way: one line on stderr (and JSON if asked), exit 2."""
    first_line = " ".join(message.split())
    print(f"divergent: error: {first_line}", file=sys.stderr)
    if as_json:
        print(json.dumps({"verdict": "error", "error": first_line, "counterexample": None}))
    return typer.Exit(EXIT_ERROR)


@contextmanager
def input_errors(as_json: bool) -> Any:
    try:
        yield
    except DivergentError as error:
        raise fail(str(error), as_json=as_json) from None


def stderr_console(quiet: bool) -> Console:
    return Console(stderr=True, quiet=quiet)


def _progress_display(console: Console, *, elapsed: bool = True) -> Any:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns: list[Any] = [TextColumn("[cyan]{task.description}"), BarColumn(bar_width=20),
                          TextColumn("{task.fields[count]}")]
    if elapsed:
        columns.append(TimeElapsedColumn())
    columns += [TextColumn("eta"), TimeRemainingColumn(compact=True), TextColumn("[dim]{task.fields[note]}")]
    return Progress(*columns, console=console, transient=True, refresh_per_second=8)


@contextmanager
def progress_bar(
    console: Console, description: str, total: float | None = None, *, enabled: bool = True, unit: str = ""
) -> Iterator[Callable[..., None]]:
    """A progress bar with counts and an ETA on ``console`` (stderr) while it is a terminal; quiet
    when ``enabled`` is False (``--json``, ``--quiet``) or the output is piped. Yields
    ``update(completed=None, total=None, advance=0, note="")``. For every long command: incoherence,
    the benchmarks (``divergent bench ...``), the searches' budget."""
    if not enabled or not console.is_terminal:
        yield lambda **_: None
        return
    display = _progress_display(console)
    task = display.add_task(description, total=total, count="", note="")
    suffix = f" {unit}" if unit else ""

    def update(*, completed: float | None = None, total: float | None = None, advance: float = 0,
               note: str | None = None, description: str | None = None) -> None:
        changes: dict[str, Any] = {}
        if total is not None:
            changes["total"] = total
        if completed is not None:
            changes["completed"] = completed
        if note is not None:
            changes["note"] = note
        if description is not None:
            changes["description"] = description
        display.update(task, advance=advance or None, **changes)
        current = display.tasks[0]
        shown_total = f"/{current.total:,.0f}" if current.total is not None else ""
        display.update(task, count=f"{current.completed:,.0f}{shown_total}{suffix}")

    with display:
        yield update


def live_progress(console: Console, enabled: bool) -> tuple[Callable | None, Callable[[], None]]:
    """A progress callback for a search (a bar over its time budget, with its counts), and a
    function to stop it; None when the display is off or not a terminal."""
    if not enabled or not console.is_terminal:
        return None, lambda: None
    display = _progress_display(console, elapsed=False)
    task = display.add_task("searching", total=None, count="", note="")
    display.start()

    def update(progress: Any) -> None:
        note = f"{progress.inputs:,} inputs · {progress.executions:,} executions"
        if console.width >= 120:  # the engines' counts too, when there is room
            note += " · " + ", ".join(f"{s.name} {s.inputs:,}" for s in progress.engines if not s.stopped)
        budget = progress.budget_seconds
        display.update(
            task, description=progress.phase, total=budget, completed=min(progress.seconds, budget or progress.seconds),
            count=f"{progress.seconds:.0f}/{budget:g} s" if budget else f"{progress.seconds:.0f} s", note=note,
        )

    return update, display.stop
