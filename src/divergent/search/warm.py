"""Warm workers lent to one search after another: a started :class:`~divergent.sandbox.pool.WorkerPool`
per shape of comparison, reloaded with each new pair of programs (a fresh call child per load,
forked from the warm worker, in a sandbox put back as it was before any program ran: every process
of the previous one killed, its files in ``/tmp`` and ``/dev/shm`` removed, no writable directory on
``sys.path``; at the ``rlimits`` level, with no PID namespace to contain leftovers, new workers per
load: docs/sandbox.md, "Warm runs"), and lent to a search as its main runner (``prepare(..., main_runner=)``).
A search confirms a difference on brand-new workers, as every search does.

Used where many searches run in a row: the CETBench generator's versions, ``divergent diff``'s
functions (docs/architecture.md, "Runner")."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from divergent.programs import PythonFunction
from divergent.records import AnyInput, Outcome
from divergent.sandbox.limits import Limits
from divergent.search.pipeline import RunnerView

if TYPE_CHECKING:
    from divergent.sandbox.pool import WorkerPool

__all__ = ["BorrowedRunner", "WarmWorkers"]


class WarmWorkers:
    """Started sandboxed workers, reused: one pool per (number of programs, argument recording),
    reloaded with each batch of versions (see the module docstring). Use from one thread (the
    workers' sandboxes live as long as the thread that started them); close when done."""

    def __init__(self, limits: Limits, isolation: str | None = None) -> None:
        self.limits = limits
        self.isolation = isolation
        self._pools: dict[tuple[int, bool], WorkerPool] = {}
        #: sandboxes started, and versions loaded into warm ones (for the figures)
        self.started = 0
        self.reloaded = 0

    def pool(self, implementations: Sequence[PythonFunction], *, compare_mutation: bool) -> WorkerPool:
        """A pool running ``implementations`` (LoadError as a new pool's)."""
        from divergent.sandbox.pool import WorkerPool

        key = (len(implementations), compare_mutation)
        found = self._pools.get(key)
        if found is not None:
            self.reloaded += len(implementations)
            found.reload(implementations)
            return found
        self.started += len(implementations)
        found = self._pools[key] = WorkerPool(implementations, limits=self.limits, isolation=self.isolation,
                                              compare_mutation=compare_mutation)
        return found

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
        self._pools.clear()


class BorrowedRunner(RunnerView):
    """A warm pool lent to one check: its executions counted from the loan, its closing left to the
    owner. Closing hands it back: it waits for a batch still running (a search leaves its background
    batch running when it stops), and later runs run nothing, so the next check has the pool alone."""

    def __init__(self, pool: WorkerPool) -> None:
        super().__init__(pool)
        self._base = pool.executions
        self._lock = threading.Lock()
        self._returned = False

    @property
    def executions(self) -> int:
        return self._runner.executions - self._base

    def run(
        self, inputs: Sequence[AnyInput], *, deadline: float | None = None, timeout: float | None = None
    ) -> list[tuple[Outcome, ...] | None]:
        with self._lock:
            if self._returned:
                return [None] * len(inputs)
            return self._runner.run(inputs, deadline=deadline, timeout=timeout)

    def close(self) -> None:
        with self._lock:
            self._returned = True
