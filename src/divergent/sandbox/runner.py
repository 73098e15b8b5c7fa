"""The runner seam: what turns (program, input) into an outcome, under limits, in the sandbox.

A :class:`Runner` runs batches of inputs on every program of a search and gives one tuple of
outcomes per input. The search loop, confirmation and shrinking talk to this interface only;
:func:`open_runner` picks the runner for the programs' kind. Today there is one kind, Python
functions, run by the persistent :class:`~divergent.sandbox.pool.WorkerPool` (a warm child per
implementation, calls in-process there), and whole programs (stdin to stdout), run by the
:class:`~divergent.sandbox.process_runner.ProcessRunner` (each built once, one sandboxed launcher
per program, one process per input).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from divergent.errors import InvalidArgument
from divergent.model import AnyInput, Outcome
from divergent.programs import Program, StdinProgram
from divergent.sandbox.isolation import Isolation, Limits

if TYPE_CHECKING:
    from divergent.sandbox.launch import ProgramLimits


class Runner(Protocol):
    """Runs inputs on a fixed set of programs in the sandbox. Close it when done."""

    #: the isolation level the runner's processes have
    level: Isolation
    #: how many (program, input) runs completed so far
    executions: int
    #: numbers, strings and bytes the programs computed when they loaded (material for engines)
    runtime_constants: list[Any]

    def run(
        self, inputs: Sequence[AnyInput], *, deadline: float | None = None, timeout: float | None = None
    ) -> list[tuple[Outcome, ...] | None]:
        """One tuple of outcomes (one per program, in order) per input; None for an input that did
        not run on every program before ``deadline`` (a ``time.monotonic()`` value). ``timeout``
        is the per-call (per-run) limit of this batch in seconds (default: the runner's
        ``Limits.timeout``); the search sends small, adaptive limits and re-runs slow inputs."""
        ...

    def close(self) -> None:
        """Stop every process the runner started."""
        ...


def open_runner(
    programs: Sequence[Program],
    *,
    limits: Limits,
    isolation: str | Isolation | None = None,
    record_arguments: bool = True,
    program_limits: ProgramLimits | None = None,
    checker: StdinProgram | None = None,
) -> Runner:
    """A started runner for ``programs`` (loading and build errors raise :class:`~divergent.errors.LoadError`).

    ``record_arguments``: whether outcomes carry the arguments' state after each call (for
    comparisons that look at argument mutation). Whole programs: ``program_limits`` (the limits of
    each run; by default ``limits.timeout`` of CPU time and 256 MiB) and a ``checker`` program
    (testlib's convention) that decides which outputs are the same answer."""
    kinds = {type(program) for program in programs}
    if len(kinds) > 1:
        raise InvalidArgument("functions and whole programs cannot be compared with each other")
    if kinds == {StdinProgram}:
        from divergent.sandbox.launch import ProgramLimits
        from divergent.sandbox.process_runner import ProcessRunner

        return ProcessRunner(
            programs,  # type: ignore[arg-type]
            limits=program_limits or ProgramLimits(time_limit=limits.timeout),
            isolation=isolation,
            checker=checker,
        )
    from divergent.sandbox.pool import WorkerPool

    return WorkerPool(programs, limits=limits, isolation=isolation, compare_mutation=record_arguments)  # type: ignore[arg-type]
