"""The ``divergent`` application object and what every command shares: the exit codes (a contract),
one-line input errors, the stderr console, the live progress line."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
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

#: when this module was imported (``time.monotonic()``): the start of the command when the
#: process's own start cannot be read
_IMPORTED = time.monotonic()


def process_started() -> float:
    """When this process started, as a ``time.monotonic()`` value: ``--budget`` counts from there,
    so start-up and imports count too. Read from ``/proc`` (Linux); elsewhere, when the CLI loaded."""
    try:
        with open("/proc/self/stat", "rb") as stream:
            fields = stream.read().rsplit(b")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 of stat(5), counted from after the command name
        with open("/proc/uptime", "rb") as stream:
            uptime = float(stream.read().split()[0])
        age = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return _IMPORTED
    if not 0 <= age < 60:
        return _IMPORTED  # clocks that do not agree: count from the CLI's start
    return time.monotonic() - age


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


def live_progress(console: Console, enabled: bool) -> tuple[Callable | None, Callable[[], None]]:
    """A progress callback drawing a live line on stderr, and a function to stop it."""
    if not enabled or not console.is_terminal:
        return None, lambda: None
    from rich.live import Live
    from rich.text import Text

    live = Live(console=console, refresh_per_second=8, transient=True)
    live.start()

    def update(progress: Any) -> None:
        budget = f"/{progress.budget_seconds:g}" if progress.budget_seconds else ""
        busy = ", ".join(f"{s.name} {s.inputs:,}" for s in progress.engines if not s.stopped)
        live.update(
            Text(
                f"{progress.phase}… {progress.seconds:5.1f}{budget} s · {progress.inputs:,} inputs · "
                f"{progress.executions:,} executions · {busy}",
                style="cyan",
            )
        )

    return update, live.stop
