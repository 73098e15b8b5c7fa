"""The ``divergent`` command line: a thin layer over the public Python API.

Exit codes (a contract): 0 no difference found within the budget, 1 a confirmed difference,
2 a usage or input error (with a one-line reason on stderr), 3 an internal error of divergent
(one line on stderr, a JSON object with verdict "error" under ``--json``; never a verdict).

Rooms: :mod:`~divergent.cli.application` (the application, exit codes, errors, progress, one JSON
shape), :mod:`~divergent.cli.option_groups` (option groups: flags declared by the group that reads
them), :mod:`~divergent.cli.search_options` (the searching commands' groups and how they become the
options), the groups (:mod:`~divergent.cli.search_groups`, :mod:`~divergent.cli.function_group`,
:mod:`~divergent.cli.program_group`, :mod:`~divergent.cli.llm_options`, :mod:`~divergent.cli.outputs`),
one module per command (check, cluster, diff, incoherence, probegen, report, sandbox, bench and its
harnesses: bench_refute, bench_equibench, bench_cetbench,
bench_selfconsistency). The program's entry point is
``divergent.__main__`` (it starts the sandboxed workers a search will need before importing this).

A command's module registers it on the application when imported. The program imports only the
module of the command it was given (:func:`main`): the others' options, and building the parser
of every command, would cost a quick ``check`` tens of milliseconds. ``from divergent.cli import
app`` (tests, hosts) gets the application with every command.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from divergent.trace import mark

if TYPE_CHECKING:
    from divergent.cli.application import DivergentTyper

__all__ = ["COMMAND_MODULES", "app", "main", "register_commands"]

#: each top-level command's name, and the modules that register it (a group: its subcommands' too)
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "bench": ("bench", "bench_cetbench", "bench_equibench", "bench_refute", "bench_selfconsistency"),
    "check": ("check",),
    "diff": ("diff",),
    "cluster": ("cluster",),
    "incoherence": ("incoherence",),
    "probegen": ("probegen",),
    "report": ("report",),
    "sandbox": ("sandbox",),
}


def register_commands(names: Sequence[str] | None = None) -> DivergentTyper:
    """The application with the named top-level commands registered (every command when ``names``
    is None or names one that is not a command: then the parser's help and errors list them all)."""
    if names is None or any(name not in COMMAND_MODULES for name in names):
        names = list(COMMAND_MODULES)
    for name in names:
        for module in COMMAND_MODULES[name]:
            importlib.import_module(f"divergent.cli.{module}")
    from divergent.cli.application import app as application

    return application


def command_named(argv: Sequence[str]) -> str | None:
    """The top-level command ``argv`` runs (its first argument that is not an option), if any."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def __getattr__(name: str) -> object:
    if name == "app":
        return register_commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> None:
    """The ``divergent`` program (after :mod:`divergent.__main__`'s early start)."""
    import sys

    from divergent.cli.application import enter_program, leave, run_app

    arguments = list(sys.argv[1:] if argv is None else argv)
    command = command_named(arguments)
    register_commands([command] if command is not None else None)
    mark("cli imported")
    enter_program()
    leave(run_app(arguments))
