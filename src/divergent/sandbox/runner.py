"""The runner seam: what turns (program, input) into an outcome, under limits, in the sandbox.

A :class:`Runner` runs batches of inputs on every program of a search and gives one tuple of
outcomes per input. The search loop, confirmation and shrinking talk to this interface only; each
kind of program opens its own (``ProgramKind.open_runner``): Python functions are run by the
persistent :class:`~divergent.sandbox.pool.WorkerPool` (a warm child per implementation, calls
in-process there), whole programs (stdin to stdout) by the
:class:`~divergent.sandbox.process_runner.ProcessRunner` (each built once, one sandboxed launcher
per program, one process per input).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from divergent.records import AnyInput, Outcome
from divergent.sandbox.isolation import Isolation


class Runner(Protocol):
    """Runs inputs on a fixed set of programs in the sandbox. Close it when done."""

    #: the isolation level the runner's processes have
    level: Isolation
    #: how many (program, input) runs completed so far
    executions: int
    #: numbers, strings and bytes the programs computed when they loaded (material for engines)
    runtime_constants: list[Any]
    #: facts the report should show about the runs (a failing checker)
    notes: list[str]

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
