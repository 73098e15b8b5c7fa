"""The ``divergent`` command line: a thin layer over the public Python API.

Exit codes (a contract): 0 no difference found within the budget, 1 a confirmed difference,
2 a usage or input error (with a one-line reason on stderr), 3 an internal error of divergent
(one line on stderr, a JSON object with verdict "error" under ``--json``; never a verdict).

Rooms: :mod:`~divergent.cli.app` (the application, exit codes, errors, progress, one JSON shape),
:mod:`~divergent.cli.option_groups` (option groups: flags declared by the group that reads them),
:mod:`~divergent.cli.search_options` (the searching commands' groups and how they become the
options), the groups (:mod:`~divergent.cli.search_groups`, :mod:`~divergent.cli.function_group`,
:mod:`~divergent.cli.program_group`, :mod:`~divergent.cli.llm_options`, :mod:`~divergent.cli.outputs`),
one module per command (check, cluster, incoherence, probegen, report, sandbox, bench and its
harnesses: bench_refute, bench_equibench, bench_cetbench,
bench_selfconsistency). The program's entry point is
``divergent.__main__`` (it starts the sandboxed workers a search will need before importing this).
"""

from divergent.cli import (  # noqa: F401 - registers the commands
    bench,
    bench_cetbench,
    bench_equibench,
    bench_refute,
    bench_selfconsistency,
    check,
    cluster,
    incoherence,
    probegen,
    report,
    sandbox,
)
from divergent.cli.app import app, enter_program, leave, run_app
from divergent.trace import mark

__all__ = ["app", "main"]


def main() -> None:
    mark("cli imported")
    enter_program()
    leave(run_app())
