"""The option groups every kind of program reads (check, cluster): the search (budget, seeds,
engines), how outcomes compare whatever the kind (the timeout rule, numeric tolerances), and the
limits of each run and the sandbox. Each declares its flags and puts its record into the
:class:`~divergent.kinds.options.SearchOptions` (:mod:`divergent.cli.option_groups`); a flag that means the
same for every kind but is measured differently is handed to the kind (``--memory``:
``ProgramKind.with_memory``) or read by each kind's own group the way its kind means it (the
tolerances)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import typer

from divergent.cli.option_groups import OptionGroup
from divergent.errors import InvalidArgument
from divergent.policy import DEFAULT_POLICY
from divergent.records import Budget
from divergent.sandbox.limits import Limits

__all__ = ["ComparisonGroup", "LimitsGroup", "SearchGroup"]

# The defaults come from the records that define them (SearchOptions's fields).
_BUDGET = Budget()
_LIMITS = Limits()


@dataclass(frozen=True)
class SearchGroup(OptionGroup):
    """How long to search, from which inputs, with which engines, under which random seed."""

    panel = "Search"

    budget: Annotated[float, typer.Option(
        "--budget", "-b", min=0.01, metavar="SECONDS",
        help="Wall seconds for the whole run, counted from the start: loading, building, searching, confirming "
        "and shrinking.")] = _BUDGET.seconds  # type: ignore[assignment]
    executions: Annotated[int | None, typer.Option(
        "--executions", min=1, metavar="N", help="Also stop after this many executions (inputs x programs).")] = None
    seeds: Annotated[list[str] | None, typer.Option(
        "--seeds", metavar="PATH",
        help="Inputs to start from (repeatable). Python functions: a file of calls, argument tuples or assert "
        "lines. Whole programs and commands: a file holding one input (a statement's sample), or a directory "
        "whose every file is one input.")] = None
    seed: Annotated[int, typer.Option(
        "--seed", metavar="N",
        help="The random seed: runs are reproducible for a seed (inputs to start from are --seeds).")] = 0
    engines: Annotated[str | None, typer.Option(
        "--engines", "-e", metavar="LIST",
        help="Comma-separated, or all: seeds, mutation, llm and randsearch (with --model) for every kind; "
        "hypothesis and symbolic for Python functions; generator for whole programs and commands "
        "(with --generator).")] = None
    min_inputs: Annotated[int | None, typer.Option(
        "--min-inputs", metavar="N", min=0,
        help="The fewest judged inputs that back 'no difference' (default 100 for every kind; 0: no floor): "
        "fewer, and the verdict is too-few-inputs (exit 4), unless the whole input space was judged.")] = None

    def apply(self, options: Any, flags: Any) -> Any:
        return options.with_(budget=Budget(seconds=self.budget, executions=self.executions), seed=self.seed,
                             seeds=tuple(self.seeds or ()), engines=self.engines, min_inputs=self.min_inputs)


@dataclass(frozen=True)
class ComparisonGroup(OptionGroup):
    """What every kind's comparison shares: the timeout rule and the tolerances of numbers."""

    panel = "Comparing outcomes"

    timeouts: Annotated[str, typer.Option(
        "--timeouts", metavar="RULE",
        help="A timeout where others finish: hang (a difference once it runs past 100x the others' time, at "
        "least --timeout), inconclusive (never) or differ (always).")] = DEFAULT_POLICY.timeouts.value
    rel_tol: Annotated[float | None, typer.Option(
        "--rel-tol", min=0.0, metavar="TOL",
        help="Relative tolerance of numbers: Python functions' floats (math.isclose; default 1e-9), whole "
        "programs' and commands' numbers with --output float (default 1e-6).")] = None
    abs_tol: Annotated[float | None, typer.Option(
        "--abs-tol", min=0.0, metavar="TOL",
        help="Absolute tolerance of numbers: Python functions' floats (default 0), whole programs' and "
        "commands' numbers with --output float (default 1e-6).")] = None

    def apply(self, options: Any, flags: Any) -> Any:
        """The equality policy with the timeout rule every kind keeps (a kind whose outcomes are not
        Python values builds its own comparison from its group, with this rule)."""
        from divergent.policy import EqualityPolicy, TimeoutRule

        try:
            rule = TimeoutRule(self.timeouts)
        except ValueError:
            raise InvalidArgument(
                f"--timeouts {self.timeouts!r}: choose from {', '.join(t.value for t in TimeoutRule)}"
            ) from None
        return options.with_(comparison=EqualityPolicy(
            timeouts=rule,
            rel_tol=DEFAULT_POLICY.rel_tol if self.rel_tol is None else self.rel_tol,
            abs_tol=DEFAULT_POLICY.abs_tol if self.abs_tol is None else self.abs_tol,
        ))


@dataclass(frozen=True)
class LimitsGroup(OptionGroup):
    """How long and how much memory one run may take, and the sandbox."""

    panel = "Limits and sandbox"

    timeout: Annotated[float, typer.Option(
        "--timeout", min=0.001, metavar="SECONDS",
        help="Seconds one run may take before it is a timeout (and the least a hang needs). Python functions: "
        "a call's wall clock (the search starts with far smaller limits and re-runs slow inputs). Whole "
        "programs and commands: CPU seconds per run (the wall clock gets twice as much).")] = _LIMITS.timeout
    memory: Annotated[int | None, typer.Option(
        "--memory", min=8, metavar="MIB",
        help="MiB of memory per run. Python functions: a worker's address space (default 2048, at least 64). "
        "Whole programs and commands: one run, all its processes together (default 256).")] = None
    isolation: Annotated[str | None, typer.Option(
        "--isolation", metavar="LEVEL",
        help="auto (the strongest this machine has), bubblewrap, unshare or rlimits (docs/sandbox.md).")] = None

    def apply(self, options: Any, flags: Any) -> Any:
        from dataclasses import replace

        return options.with_(limits=replace(options.limits, timeout=self.timeout), isolation=self.isolation)

    def finish(self, options: Any, kind: Any) -> Any:
        """``--memory`` as the kind measures one run's memory (every kind runs processes: a worker's
        address space, a whole program's processes together, ...)."""
        return options if self.memory is None else kind.with_memory(options, self.memory)
