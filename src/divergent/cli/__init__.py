"""The ``divergent`` command line: a thin layer over the public Python API.

Exit codes (a contract): 0 no difference found within the budget, 1 a confirmed difference,
2 a usage or input error (with a one-line reason on stderr).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import contextmanager
from typing import Annotated, Any

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


# Options shared by the commands that search (kept in one place so check and cluster agree).
FunctionOpt = Annotated[str | None, typer.Option("--function", "-f", help="Function name, for specs that name none.")]
BudgetOpt = Annotated[float, typer.Option("--budget", "-b", help="Wall seconds for the search.", min=0.01)]
ExecutionsOpt = Annotated[
    int | None, typer.Option("--executions", help="Also stop after this many executions.", min=1)
]
EnginesOpt = Annotated[
    str | None, typer.Option("--engines", "-e", help="Comma-separated: seeds,mutation,hypothesis,symbolic.")
]
SeedsOpt = Annotated[
    list[str] | None, typer.Option("--seeds", help="File of seed inputs (calls, argument tuples or assert lines).")
]
RequireOpt = Annotated[str | None, typer.Option("--require", help="Precondition on inputs, e.g. 'n >= 0'.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object (the documented contract).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No live display; only the result.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed: runs are reproducible for a seed.")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", help="Seconds per call before it is a timeout.", min=0.001)]
MemoryOpt = Annotated[int, typer.Option("--memory", help="Address-space limit per worker, MiB.", min=64)]
IsolationOpt = Annotated[
    str | None, typer.Option("--isolation", help="auto, bubblewrap, unshare or rlimits (see docs/sandbox.md).")
]
RelTolOpt = Annotated[float, typer.Option("--rel-tol", help="Relative tolerance for floats (math.isclose).")]
AbsTolOpt = Annotated[float, typer.Option("--abs-tol", help="Absolute tolerance for floats.")]
NanOpt = Annotated[bool, typer.Option("--nan-equal/--nan-unequal", help="Whether NaN equals NaN.")]
ExceptionsOpt = Annotated[
    str, typer.Option("--exceptions", help="When exceptions are equal: type, any, or type-and-message.")
]
UnorderedOpt = Annotated[bool, typer.Option("--unordered", help="Compare lists and tuples ignoring order.")]
MutationOpt = Annotated[
    bool, typer.Option("--compare-mutation/--ignore-mutation", help="Compare arguments after the call.")
]
StdoutOpt = Annotated[bool, typer.Option("--compare-stdout", help="Also compare what the calls print.")]
IterOpt = Annotated[int, typer.Option("--iterable-limit", help="Compare this many items of iterators.", min=0)]
ListTupleOpt = Annotated[bool, typer.Option("--list-equals-tuple", help="Treat [1, 2] and (1, 2) as equal.")]


def build_policy(
    rel_tol: float, abs_tol: float, nan_equal: bool, exceptions: str, unordered: bool, compare_mutation: bool,
    compare_stdout: bool, iterable_limit: int, list_equals_tuple: bool,
) -> Any:
    from divergent.errors import InvalidArgument
    from divergent.policy import EqualityPolicy, ExceptionEquality

    try:
        exception_rule = ExceptionEquality(exceptions)
    except ValueError:
        raise InvalidArgument(
            f"--exceptions {exceptions!r}: choose from {', '.join(e.value for e in ExceptionEquality)}"
        ) from None
    return EqualityPolicy(
        rel_tol=rel_tol, abs_tol=abs_tol, nan_equal=nan_equal, exceptions=exception_rule, unordered=unordered,
        compare_mutation=compare_mutation, compare_stdout=compare_stdout, iterable_limit=iterable_limit,
        list_equals_tuple=list_equals_tuple,
    )


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


from divergent.cli import check as _check  # noqa: E402,F401 - registers the commands
from divergent.cli import cluster as _cluster  # noqa: E402,F401
from divergent.cli import sandbox as _sandbox  # noqa: E402,F401


def main() -> None:
    app()
