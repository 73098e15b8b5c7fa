"""The sandboxed workers a search will need, started before the command line is imported and parsed.

A quick ``divergent check a.py b.py -f f`` spends most of its time before the search starts:
importing the command line (typer, rich, pydantic behind typer) and parsing it. Starting the
sandboxed workers takes about as long again, on the other core. So the program's entry point
(``divergent.__main__``) looks at its arguments first, with a few lines and none of the command
line's imports: when they name Python files for ``check`` or ``cluster`` (the implementations come
first, before any option), it starts blank workers able to read exactly those files, with the
default limits and isolation level (:func:`divergent.sandbox.pool.prestart_workers`), then imports
and parses the rest. The pools of the search take them when they ask for workers with exactly those
settings (the same sandbox, the same command line); options that change the sandbox
(``--timeout``, ``--memory``, ``--isolation``) or other kinds of program make it start its own, and
the blank ones are killed at exit. A guess that turns out wrong costs a few idle workers, never a
weaker sandbox.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

#: the commands whose first arguments are implementations
_SEARCHING = ("check", "cluster")
#: options that change the workers' sandbox or the kind of program: no early start with them
_CHANGES_WORKERS = ("--timeout", "--memory", "--isolation", "--stdin", "--help", "-h")
#: more implementations than this: only the search's own workers are started early, no spares
_FEW = 4
#: more implementations than this: none started early (starting them holds the main thread, before
#: the budget is even read; the search starts them itself, within its budget)
_MANY = 16


def python_files(argv: Sequence[str]) -> list[str]:
    """The Python files a searching command's leading arguments name (``a.py``, ``a.py:f``), as
    absolute paths; empty when the command is another, when an option changes the workers, or when
    an implementation is not a plain file (a module, a git revision)."""
    if not argv or argv[0] not in _SEARCHING:
        return []
    if any(arg.split("=", 1)[0] in _CHANGES_WORKERS for arg in argv[1:]):
        return []
    files = []
    for arg in argv[1:]:
        if arg.startswith("-"):
            break
        path = arg if arg.endswith(".py") else arg.rpartition(":")[0]
        if not path.endswith(".py") or not os.path.isfile(path):
            return []
        files.append(os.path.abspath(path))
    return files if 2 <= len(files) <= _MANY else []


def readable_paths(file: str) -> list[str]:
    """What a worker for the implementation in ``file`` may read: its import root and the file, as
    the pool gives them (:func:`divergent.sandbox.frames.implementation_paths`)."""
    from pathlib import Path

    from divergent.load.python_files import package_layout
    from divergent.sandbox.isolation import program_paths

    _, sys_path = package_layout(Path(file))
    return program_paths(sys_path, [file])


def start_workers(argv: Sequence[str]) -> int:
    """Start the workers the command in ``argv`` will most likely ask for (see the module's
    docstring); how many were started. Never fails: the search starts its own otherwise."""
    files = python_files(argv)
    if not files:
        return 0
    try:
        from divergent.sandbox.pool import prestart_workers

        return prestart_workers([readable_paths(file) for file in files], copies=2 if len(files) <= _FEW else 1)
    except Exception:  # noqa: BLE001 - an aid to speed: the search starts (and reports on) its own
        return 0
