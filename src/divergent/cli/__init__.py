"""The ``divergent`` command line: a thin layer over the public Python API.

Exit codes (a contract): 0 no difference found within the budget, 1 a confirmed difference,
2 a usage or input error (with a one-line reason on stderr).

Rooms: :mod:`~divergent.cli.app` (the application, exit codes, errors, progress),
:mod:`~divergent.cli.search_options` (the options of the searching commands), one module per
command (check, cluster, incoherence, probegen, sandbox, bench and its harnesses: bench_equibench,
bench_cetbench), :mod:`~divergent.cli.llm_options`.
"""

from divergent.cli import (  # noqa: F401 - registers the commands
    bench,
    bench_cetbench,
    bench_equibench,
    check,
    cluster,
    incoherence,
    probegen,
    sandbox,
)
from divergent.cli.app import app


def main() -> None:
    app()
