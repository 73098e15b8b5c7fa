"""Runners started ahead of need: the search's main runner while the rest is set up, and spare fresh
runners for confirmation and re-runs.

A difference counts only when it holds on brand-new workers (no state left over from earlier calls),
and starting workers costs a sizeable part of a quick answer (a process per program, each importing
its program). :class:`Prestarted` starts a runner on a thread (the start waits on the child
processes, which does not hold the interpreter), so the caller goes on meanwhile; :class:`SpareRunners`
keeps one such fresh runner ready, hands it out, and starts the next.

The starting thread lives as long as the runner: the sandbox asks the kernel to kill a worker when
the thread that started it ends (bubblewrap's ``--die-with-parent`` is tied to the starting thread),
so the thread waits until the runner is closed.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

from divergent.errors import BudgetSpent
from divergent.sandbox.runner import Runner
from divergent.search.pipeline import RunnerView


class _HeldRunner(RunnerView):
    """A runner whose starting thread waits until it is closed (see the module's docstring)."""

    def __init__(self, runner: Runner, closed: threading.Event) -> None:
        super().__init__(runner)
        self._closed = closed

    def close(self) -> None:
        try:
            self._runner.close()
        finally:
            self._closed.set()


class Prestarted:
    """A runner being started on a thread; :meth:`get` waits for it (and raises what its start raised)."""

    def __init__(self, start: Callable[[], Runner], *, on_ready: Callable[[], None] | None = None) -> None:
        self._on_ready = on_ready
        self._runner: Runner | None = None
        self._error: BaseException | None = None
        self._discarded = False
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(start,), name="divergent-runner", daemon=True)
        self._thread.start()

    def _run(self, start: Callable[[], Runner]) -> None:
        try:
            runner = start()
        except BaseException as error:  # noqa: BLE001 - handed to whoever waits for the runner
            self._error = error
            self._ready.set()
            return
        held = _HeldRunner(runner, self._closed)
        with self._lock:
            self._runner = held  # type: ignore[assignment]
            discarded = self._discarded
        self._ready.set()
        if discarded:
            held.close()  # nobody will use it any more
        elif self._on_ready is not None:
            self._on_ready()
        self._closed.wait()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def get(self, timeout: float | None = None) -> Runner:
        """The started runner (waits for it, at most ``timeout`` seconds: then BudgetSpent, and the
        runner is closed once it has started); once only. Closing it lets the starting thread end."""
        if not self._ready.wait(None if timeout is None else max(0.0, timeout)):
            self.discard()
            raise BudgetSpent("the budget ended while the programs' sandboxed workers were starting: raise --budget")
        if self._error is not None:
            raise self._error
        with self._lock:
            runner = self._runner
        assert runner is not None
        return runner

    def discard(self) -> None:
        """Close the runner, now or as soon as it has started."""
        with self._lock:
            runner, self._runner = self._runner, None
            self._discarded = True
        if runner is not None:
            with contextlib.suppress(Exception):
                runner.close()


class SpareRunners:
    """Fresh runners on demand, up to ``count`` of them starting or ready in the background.

    A found difference is confirmed on one, and its shrunk form on another when the first does not
    hold; slow inputs are re-run on them. The first spare starts at once; the others only when
    :meth:`keep` asks for them (the search does once it has run a moment: a quick answer needs one
    spare, and a second one started for nothing costs the other core's time and a tear-down before
    the program can exit), and each once the one before it is ready (starting them all at once
    would slow the first). Thread-safe: the search's thread and its re-run lane both take runners.
    A taken runner belongs to the caller (who closes it)."""

    def __init__(self, start: Callable[[], Runner], *, count: int = 2, start_now: bool = True,
                 more_after: float | None = None) -> None:
        self._start = start
        self._count = count
        #: :meth:`tick` calls :meth:`keep` once this many seconds have passed (None: never)
        self._keep_at = None if more_after is None else time.monotonic() + more_after
        #: how many spares to keep starting or ready now (:meth:`keep` raises it to ``count``)
        self._wanted = min(1, count)
        self._lock = threading.Lock()
        self._spares: list[Prestarted] = []
        self._closed = False
        if start_now:
            self.prepare()

    def tick(self) -> None:
        """Keep ``count`` spares once the seconds of ``more_after`` have passed."""
        if self._keep_at is not None and time.monotonic() >= self._keep_at:
            self._keep_at = None
            self.keep()

    def keep(self) -> None:
        """From now on keep ``count`` spares (not just the first)."""
        with self._lock:
            if self._wanted == self._count:
                return
            self._wanted = self._count
        self.prepare()

    def prepare(self) -> None:
        """Start a spare when fewer than wanted are starting or ready, and none is still starting."""
        with self._lock:
            if self._closed or len(self._spares) >= self._wanted:
                return
            if self._spares and not self._spares[-1].ready:
                return  # the next one starts when this one is ready (see take and _started)
            self._spares.append(Prestarted(self._start, on_ready=self.prepare))

    def take(self, timeout: float | None = None) -> Runner:
        """A fresh runner (a ready spare, else the one starting, else one started now), waited for
        at most ``timeout`` seconds (then BudgetSpent); the next spare starts at once once
        :meth:`keep` was called (before, the first spare is not replaced)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the spare runners are closed")
            ready = [spare for spare in self._spares if spare.ready]
            spare = ready[0] if ready else (self._spares[0] if self._spares else None)
            if spare is not None:
                self._spares.remove(spare)
            if self._wanted < self._count:
                self._wanted = 0  # the quick start's one spare is used: more only when kept
        if spare is None:
            spare = Prestarted(self._start)
        if self._wanted > 1:
            self.prepare()
        return spare.get(timeout)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            spares, self._spares = self._spares, []
        for spare in spares:
            spare.discard()
