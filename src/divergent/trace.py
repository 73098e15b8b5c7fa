"""Stamps of where a command's time goes: ``DIVERGENT_TRACE=FILE divergent check ...`` writes one JSON
line per stamp (``{"mark": name, "t": time.monotonic(), "cpu": time.process_time(), "thread": name}``) to FILE when the process
exits, the last one (``exit``) written by the exit handler itself, after the others (the workers'
clean-up, the cgroups' removal) ran. Without the variable a stamp costs one test of a constant.

``benchmarks/first_answer.py`` reads these stamps into the floor breakdown of a quick answer
(imports, sandbox start, first batch, confirmation, shrinking, report, exit). ``time.monotonic()``
is one clock for every process of the machine, so a parent that notes when it started the command
can place the stamps in its own timeline; ``cpu`` (the process's CPU seconds, every thread) tells
what a phase cost apart from waiting on a loaded machine."""

from __future__ import annotations

import atexit
import json
import os
import threading
import time

_FILE = os.environ.get("DIVERGENT_TRACE") or None
_PID = os.getpid()
_marks: list[tuple[str, float, float, str]] = []


def mark(name: str) -> None:
    """Stamp ``name`` now (nothing unless ``DIVERGENT_TRACE`` names a file)."""
    if _FILE is not None:
        _marks.append((name, time.monotonic(), time.process_time(), threading.current_thread().name))


def enabled() -> bool:
    return _FILE is not None


def _write() -> None:
    if _FILE is None or os.getpid() != _PID:  # a forked child keeps its parent's handlers: not its file
        return
    mark("exit")
    try:
        with open(_FILE, "a", encoding="utf-8") as stream:
            for name, moment, cpu, thread in _marks:
                stream.write(json.dumps({"mark": name, "t": moment, "cpu": cpu, "thread": thread}) + "\n")
    except OSError:
        pass  # a measurement aid: never a reason for the command to fail


if _FILE is not None:
    # Registered first (imported with the package), so it runs last: after every other exit handler.
    atexit.register(_write)
