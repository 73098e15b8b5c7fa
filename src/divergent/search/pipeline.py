"""One batch in the sandbox while the search thinks: the search proposes the next batch and judges the
last one while the workers run the current one.

Running a batch is mostly waiting for the workers (in other processes, on the other core); proposing
and judging are Python work in the search's own process. :class:`Pipeline` runs each batch on one
thread of its own, so the two overlap: ``start`` hands a batch to that thread, ``take`` waits for its
results. Anything else that needs the runner goes through :class:`ExclusiveRunner`, which first lets
the batch in flight finish (the runner serves one caller at a time).

The thread lives as long as the runner: a worker the runner restarts (after a crash or a hang) is
started from it, and the sandbox ties a worker's life to the thread that started it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from divergent.engines.base import Engine
from divergent.records import AnyInput, Outcome
from divergent.sandbox.isolation import Isolation
from divergent.sandbox.runner import Runner


@dataclass
class Batch:
    """A batch handed to the runner: whose inputs, and the outcomes once it ran."""

    engine: Engine
    inputs: list[AnyInput]
    future: Future[list[tuple[Outcome, ...] | None]]
    #: the per-call limit it ran under
    limit: float


class Pipeline:
    """At most one batch running on the runner in the background."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="divergent-batch")
        self._inflight: Batch | None = None

    @property
    def busy(self) -> bool:
        return self._inflight is not None

    @property
    def done(self) -> bool:
        """A batch is in flight and has finished running."""
        return self._inflight is not None and self._inflight.future.done()

    def start(self, engine: Engine, inputs: list[AnyInput], *, deadline: float | None, limit: float) -> None:
        """Run ``inputs`` in the background (the caller has taken the previous batch)."""
        assert self._inflight is None, "take the batch in flight first"
        future = self._executor.submit(self.runner.run, inputs, deadline=deadline, timeout=limit)
        self._inflight = Batch(engine, inputs, future, limit)

    def take(self) -> tuple[Batch, list[tuple[Outcome, ...] | None], float] | None:
        """The batch in flight, its outcomes (waiting for them) and the seconds waited; None when idle."""
        batch, self._inflight = self._inflight, None
        if batch is None:
            return None
        waited = time.monotonic()
        results = batch.future.result()
        return batch, results, time.monotonic() - waited

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class RunnerView:
    """A runner seen through a wrapper: the :class:`~divergent.sandbox.runner.Runner` protocol,
    passed on to the wrapped runner (subclasses add what they wrap it for)."""

    def __init__(self, runner: Runner) -> None:
        self._runner = runner

    @property
    def level(self) -> Isolation:
        return self._runner.level

    @property
    def executions(self) -> int:
        return self._runner.executions

    @property
    def runtime_constants(self) -> list[Any]:
        return self._runner.runtime_constants

    @property
    def notes(self) -> list[str]:
        return self._runner.notes

    def run(self, inputs: Sequence[AnyInput], *, deadline: float | None = None,
            timeout: float | None = None) -> list[tuple[Outcome, ...] | None]:
        return self._runner.run(inputs, deadline=deadline, timeout=timeout)

    def close(self) -> None:
        self._runner.close()


class ExclusiveRunner(RunnerView):
    """The search's runner as everyone else sees it: ``run`` first settles the batch in flight."""

    def __init__(self, runner: Runner, settle: Callable[[], None]) -> None:
        super().__init__(runner)
        self._settle = settle

    def swap(self, runner: Runner) -> Runner:
        """Run on ``runner`` from now on (the batch in flight settled first); the runner it replaces."""
        self._settle()
        old, self._runner = self._runner, runner
        return old

    def run(self, inputs: Sequence[AnyInput], *, deadline: float | None = None,
            timeout: float | None = None) -> list[tuple[Outcome, ...] | None]:
        self._settle()
        return self._runner.run(inputs, deadline=deadline, timeout=timeout)
