"""What the CLI adds to reports of whole programs: the counterexample's input saved to a file, and
the command lines that reproduce each program's run on it."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from divergent.model import Report, TextInput
from divergent.programs import StdinProgram


def inputs_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "divergent" / "inputs"


def save_input(item: TextInput) -> str | None:
    """Write the input to ``$XDG_CACHE_HOME/divergent/inputs/HASH.txt``; its path (None if it
    cannot be written)."""
    data = item.text.encode("utf-8", "surrogateescape")
    path = inputs_dir() / f"{hashlib.sha256(data).hexdigest()[:16]}.txt"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_bytes(data)
    except OSError:
        return None
    return str(path)


def program_extras(report: Report, programs: Sequence[Any], settings: Any, default_time: float) -> tuple[str | None, list[str]]:
    """The saved input and the reproduction commands of a report on whole programs."""
    cx = report.counterexample
    if cx is None or not isinstance(cx.input, TextInput):
        return None, []
    input_file = save_input(cx.input)
    if input_file is None:
        return None, []
    from divergent.errors import DivergentError
    from divergent.sandbox.builds import planned, reproduction

    limits = settings.limits(default_time)
    build = settings.build_options()
    commands: list[str] = []
    for program in programs:
        if not isinstance(program, StdinProgram):
            continue
        if program.build == type(program.build)():
            program = replace(program, build=build)
        try:
            commands.extend(reproduction(planned(program, limits), input_file))
        except DivergentError:
            continue
    return input_file, commands
