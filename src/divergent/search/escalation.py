"""Slow inputs without stalling the search: adaptive per-call limits and a lane that re-runs the
inputs that ran past them.

The search runs every input under a small per-call limit (:class:`AdaptiveLimit`: tens of
milliseconds, scaled by the calls' observed times), so one slow input costs little and the engines
keep their turns. An input on which some implementation ran past that limit while another finished
is *pending*: the :class:`Escalator` re-runs it on its own thread, on fresh workers (so what it finds
is confirmed as it is found), under the escalated limit, in parallel with the search, while the
budget allows:

* an implementation that now finishes was only slow: its outcome is compared as any other;
* one that runs past the escalated limit (``Limits.hang_limit``: ``hang_factor`` times the slowest
  time another implementation needed on that input, at least ``Limits.timeout``) is a *hang*, a
  behaviour of its own under the default timeout rule (:class:`~divergent.comparison.TimeoutRule`).

Inputs on which *every* implementation ran past the small limit are re-run too (a few, at
``Limits.timeout``, after the pending ones): slow everywhere, they may still differ in value.
"""

from __future__ import annotations

import contextlib
import queue
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from divergent.comparison import Comparison, TimeoutRule
from divergent.errors import BudgetSpent
from divergent.records import Observation, Outcome, OutcomeKind
from divergent.sandbox.limits import Limits
from divergent.sandbox.runner import Runner

#: a call limit is this many times the typical (median) call time seen so far
_TYPICAL_FACTOR = 20.0
#: when more than this share of a batch ran past the limit everywhere, the limit grows
_ALL_SLOW_SHARE = 0.5
_LIMIT_GROWTH = 4.0
#: inputs slow on every implementation that are re-run at most, per search
MAX_SLOW_RERUNS = 8
#: pending inputs kept at most (the rest are dropped, counted in the notes)
MAX_PENDING = 64


class AdaptiveLimit:
    """The per-call limit the search sends with each batch: small, following the calls' times."""

    def __init__(self, limits: Limits, *, adaptive: bool = True) -> None:
        self.limits = limits
        self.adaptive = adaptive
        self._recent: deque[float] = deque(maxlen=256)
        #: raised when batches keep running past the limit everywhere; never lowered
        self._floor = min(limits.first_timeout, limits.timeout)
        self.current = self._floor if adaptive else limits.timeout

    def record(self, results: list[tuple[Outcome, ...]]) -> None:
        """The outcomes of one batch (inputs that ran on every implementation)."""
        if not self.adaptive or not results:
            return
        all_slow = 0
        for outcomes in results:
            finished = [o.seconds for o in outcomes if o.kind is not OutcomeKind.TIMEOUT]
            if finished:
                self._recent.append(max(finished))
            else:
                all_slow += 1
        if all_slow > _ALL_SLOW_SHARE * len(results) and self.current < self.limits.timeout:
            self._floor = min(self.limits.timeout, self.current * _LIMIT_GROWTH)
        typical = statistics.median(self._recent) if self._recent else 0.0
        self.current = min(self.limits.timeout, max(self._floor, _TYPICAL_FACTOR * typical))


@dataclass(frozen=True)
class Pending:
    """An input some implementation ran past the small limit on."""

    #: what the search saw (the timed-out outcomes under the small limit)
    observation: Observation
    #: the engine that proposed it
    engine: str
    #: the slowest finished implementation's seconds (0.0: none finished)
    slowest_other: float

    @property
    def one_sided(self) -> bool:
        return any(o.kind is not OutcomeKind.TIMEOUT for o in self.observation.outcomes)


@dataclass(frozen=True)
class Escalated:
    """A pending input re-run under the escalated limit."""

    pending: Pending
    #: the outcomes of the re-run (hangs marked), judged by the comparison
    observation: Observation
    #: the limit given to the re-run
    limit: float
    #: ran on fresh workers, every outcome stable against the first run: confirmed as it stands
    confirmed: bool
    #: why it is not confirmed (a finishing implementation behaved differently than the first time)
    why: str = ""


class Escalator:
    """Re-runs pending inputs on its own thread; the search collects what they showed.

    ``fresh_runner`` gives a brand-new runner (the caller's spares); ``deadline`` is when the
    search's budget ends (``time.monotonic()``), ``reserve`` the seconds kept for what comes after
    (confirmation, shrinking, the report)."""

    def __init__(
        self,
        *,
        limits: Limits,
        comparison: Comparison,
        fresh_runner: Callable[[], Runner],
        deadline: float | None,
        reserve: float = 0.3,
    ) -> None:
        self.limits = limits
        self.comparison = comparison
        #: whether a call still running at the escalated limit where others return is a hang (a
        #: difference under the timeout rule ``hang``)
        self.hangs_count = comparison.timeouts is TimeoutRule.HANG
        self._fresh_runner = fresh_runner
        self.deadline = deadline
        self.reserve = reserve
        self._one_sided: deque[Pending] = deque()
        self._slow: deque[Pending] = deque()
        self._keys: set[str] = set()
        self._results: queue.SimpleQueue[Escalated] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = False
        self._running: Runner | None = None
        self._slow_runner: Runner | None = None
        self._thread: threading.Thread | None = None
        self.slow_reruns = 0
        self.dropped = 0
        #: pending inputs the budget did not leave time to settle (reported in the notes)
        self.unsettled: list[Pending] = []
        #: the one in progress
        self.current: Pending | None = None

    # -- the search's side ---------------------------------------------------------------------

    def submit(self, pending: Pending) -> None:
        key = pending.observation.input.key
        with self._lock:
            if key in self._keys or self._stopping:
                return
            self._keys.add(key)
            if pending.one_sided:
                if len(self._one_sided) >= MAX_PENDING:
                    self.dropped += 1
                    return
                self._one_sided.append(pending)
            else:
                if self.slow_reruns + len(self._slow) >= MAX_SLOW_RERUNS:
                    return
                self._slow.append(pending)
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="divergent-escalation", daemon=True)
            self._thread.start()
        self._wake.set()

    def results(self) -> list[Escalated]:
        """What the re-runs showed since the last call (non-blocking)."""
        found = []
        while True:
            try:
                found.append(self._results.get_nowait())
            except queue.Empty:
                return found

    @property
    def busy(self) -> bool:
        with self._lock:
            return self.current is not None or bool(self._one_sided) or bool(self._slow)

    def waiting(self) -> list[Pending]:
        """Pending inputs not settled (in progress, queued, or left for lack of time)."""
        with self._lock:
            queued = ([self.current] if self.current is not None else []) + list(self._one_sided)
            return [*self.unsettled, *queued]

    def close(self) -> None:
        """Stop: the re-run in progress is killed (its runner closed)."""
        with self._lock:
            self._stopping = True
            running = self._running
            self.unsettled.extend(self._one_sided)
            self._one_sided.clear()
            self._slow.clear()
        self._wake.set()
        if running is not None:
            with contextlib.suppress(Exception):
                running.close()
        # The thread is not waited for: a re-run whose runner was closed under it wakes up at its
        # own limit, finds the pool closed and ends (a daemon thread; its workers are dead already).
        if self._slow_runner is not None:
            with contextlib.suppress(Exception):
                self._slow_runner.close()

    # -- the lane ------------------------------------------------------------------------------

    def _next(self) -> Pending | None:
        with self._lock:
            if self._stopping:
                return None
            if self._one_sided:
                self.current = self._one_sided.popleft()
            elif self._slow:
                self.current = self._slow.popleft()
                self.slow_reruns += 1
            else:
                self.current = None
            return self.current

    def _serve(self) -> None:
        while True:
            pending = self._next()
            if pending is None:
                if self._stopping:
                    return
                self._wake.wait(0.2)
                self._wake.clear()
                continue
            try:
                result = self._escalate(pending)
            except Exception:  # noqa: BLE001 - a re-run that broke settles nothing; the search goes on
                result = None
            with self._lock:
                self.current = None
                if result is None and pending.one_sided and not self._stopping:
                    self.unsettled.append(pending)
            if result is not None:
                self._results.put(result)

    def _room(self) -> float:
        if self.deadline is None:
            return float("inf")
        return self.deadline - time.monotonic() - self.reserve

    def _escalate(self, pending: Pending) -> Escalated | None:
        one_sided = pending.one_sided
        full = self.limits.hang_limit(pending.slowest_other) if (one_sided and self.hangs_count) else self.limits.timeout
        limit = min(full, self._room())
        if limit < 2 * self.limits.first_timeout:
            return None  # no time left to say more than the first run did
        item = pending.observation.input
        try:
            if one_sided:
                runner = self._fresh_runner()  # fresh: what it shows is confirmed as it is shown
            else:
                if self._slow_runner is None:
                    self._slow_runner = self._fresh_runner()
                runner = self._slow_runner
        except BudgetSpent:
            return None  # no fresh runner before the end of the budget: nothing settled
        with self._lock:
            self._running = runner
            stopping = self._stopping
        try:
            results = [] if stopping else runner.run([item], timeout=limit)
        finally:
            with self._lock:
                self._running = None
            if one_sided:
                runner.close()
        outcomes = results[0] if results else None
        if outcomes is None:
            return None
        capped = limit < full
        finished = [o for o in outcomes if o.kind is not OutcomeKind.TIMEOUT]
        if finished and not capped and self.hangs_count:
            outcomes = tuple(
                replace(o, hang=True, detail=self._hang_detail(limit, pending.slowest_other))
                if o.kind is OutcomeKind.TIMEOUT
                else o
                for o in outcomes
            )
        elif capped and len(finished) < len(outcomes):
            return None  # still running when the budget's time ran out: nothing settled
        observation = self.comparison.observe(item, outcomes)
        if not one_sided:
            return Escalated(pending, observation, limit, confirmed=False)
        unstable = [
            i
            for i, (before, after) in enumerate(zip(pending.observation.outcomes, outcomes, strict=True))
            if before.kind is not OutcomeKind.TIMEOUT and not self.comparison.outcomes_equal(before, after)
        ]
        why = "not deterministic: behaved differently on a re-run" if unstable else ""
        return Escalated(pending, observation, limit, confirmed=not unstable, why=why)

    def _hang_detail(self, limit: float, slowest_other: float) -> str:
        return (
            f"no result within {limit:g} s where another implementation needed {_seconds(slowest_other)} "
            f"(the limit: {self.limits.hang_factor:g}× that, at least {self.limits.timeout:g} s)"
        )


def _seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.1f} ms"
    return f"{value * 1e6:.0f} µs"
