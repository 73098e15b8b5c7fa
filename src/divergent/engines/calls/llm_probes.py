"""The LLM engine: ProbeGen's tree search (:mod:`divergent.probegen`) as a member of the portfolio.

Scheduling: **in parallel**, as a background engine. A model call takes seconds; the cheap engines
(seeds, mutation, Hypothesis) run thousands of inputs in that time, so the LLM engine must never
hold the loop. On its first :meth:`~LLMProbeEngine.propose` it starts a thread that runs the tree
search (Decreasing, K = 3, D = 4 unless configured); the portfolio polls it on every turn, like the
symbolic engine, and whatever it has found runs in the next batch. The cheap engines keep the
whole budget meanwhile: if they find a difference first, the run stops there and the thread is
told to stop.

Feedback: the tree search runs each node's inputs on *its own* sandboxed workers (one per
implementation, at the run's isolation level and limits), so the model gets complete feedback for
its node at once, whatever the search loop de-duplicates, rejects or runs later. Every accepted
input is then handed to the search loop (differentiating ones first), which runs it on the shared
workers, confirms it on fresh ones, shrinks it and judges it like any engine's find; the other
engines see those observations too (a probe that differentiates seeds the mutation engine). The
cost is a second run of a few dozen inputs per model call: small next to the call itself.

When a spurious-counterexample filter is configured, it is the tree search's ``accept`` hook: a
differentiating probe judged irrelevant does not end its branch, its children are told so. A
node's inputs are handed to the search loop as soon as they ran, *before* the filter is asked
(``on_observed``): a difference never waits in this thread for a model that may not answer in
time. The filter answers the search loop's question about the same input from its memory, or
waits for the answer this thread is getting, until the search's deadline; a difference still
unjudged then is reported as such.

Failure: a model call that fails for good (dead endpoint, refused key, replay cache miss, 5xx
after the retries) stops this engine only, with the reason as its note ("failed: ..."); the
other engines go on and their results are reported. A model that never answers with code stops
it the same way once a whole level of the tree has no code.

Needs ``context.model`` (the chat model, and optionally the task description ``spec``, the
``spurious_filter`` and a ``store`` for the trees); ``context.settings.probegen`` chooses the tree
(strategy, K, D) and ``context.comparison`` compares outcomes.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from divergent.engines.base import Engine, EngineContext
from divergent.errors import EngineCannotProceed, StopReason
from divergent.probegen.session import ProbeGenResult, ProbeGenSession
from divergent.probegen.strategies import max_calls
from divergent.probegen.tree import ProbeNode
from divergent.records import Input, Observation

__all__ = ["LLMProbeEngine"]

#: how long close() waits for the search thread before closing its workers from outside
_CLOSE_WAIT = 0.2


class LLMProbeEngine(Engine):
    """Proposes the inputs of ProbeGen's model-written generators, searched in a background thread."""

    name = "llm"
    background = True

    def __init__(self, context: EngineContext) -> None:
        super().__init__(context)
        if context.model is None:
            raise EngineCannotProceed(
                "unsupported", "no language model configured: pass --model (see docs/llm.md)"
            )
        self.model = context.model
        self.chat = context.model.chat
        settings = context.settings.probegen
        self.strategy = settings.strategy
        self.k = settings.k
        self.d = settings.d
        max_calls(self.strategy, self.k, self.d)  # bad settings fail now, not in the thread
        self._lock = threading.Lock()
        self._ready: deque[Input] = deque()
        #: the keys of the inputs queued (a node's inputs arrive before and after the filter's say)
        self._queued: set[str] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._session: ProbeGenSession | None = None
        self._result: ProbeGenResult | None = None
        self._crash: str | None = None
        self._nodes = 0
        self._without_code = 0
        self._first_answer = ""
        self._proposed = 0
        self._stopped: EngineCannotProceed | None = None

    # -- Engine interface ----------------------------------------------------------------------

    def propose(self, n: int) -> list[Input]:
        if self._stopped is not None:
            raise self._stopped
        if self._thread is None:
            self._thread = threading.Thread(target=self._search, name="divergent-llm", daemon=True)
            self._thread.start()
        with self._lock:
            batch = [self._ready.popleft() for _ in range(min(n, len(self._ready)))]
            done = not self._thread.is_alive() and not self._ready
        self._proposed += len(batch)
        if not batch and done:
            self._stopped = self._stop_reason()
            raise self._stopped
        return batch

    def observe(self, observations: Sequence[Observation]) -> None:
        """Nothing to learn here: the tree search gets its feedback from its own runs."""

    def close(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread.is_alive():
            thread.join(_CLOSE_WAIT)
            if thread.is_alive() and self._session is not None:
                # Still waiting on the model: its workers must not outlive the run.
                with contextlib.suppress(Exception):
                    self._session.close()

    def failure_note(self) -> str | None:
        """Why this engine failed, once its search has ended in failure (None otherwise); read
        without waiting, so a report can say it even when another engine ended the run first."""
        thread = self._thread
        if self._stopped is not None:
            stop = self._stopped
        elif thread is not None and not thread.is_alive():
            stop = self._stop_reason()
        else:
            return None
        return str(stop) if stop.reason == "failed" else None

    @property
    def session(self) -> ProbeGenSession | None:
        """The tree search (for its tree and usage), once started."""
        return self._session

    # -- the search thread ---------------------------------------------------------------------

    def _search(self) -> None:
        context = self.context
        spurious_filter = self.model.spurious_filter
        accept = None
        if spurious_filter is not None:
            implementations = context.implementations

            def accept(observation: Observation) -> bool:
                return spurious_filter.assess(implementations, observation.input, observation.outcomes).relevant

        try:
            session = self._open_session(accept)
            self._session = session
            try:
                self._result = session.search(strategy=self.strategy, k=self.k, d=self.d)
            finally:
                session.close()
        except Exception as error:  # noqa: BLE001 - the engine stops; the run goes on
            self._crash = f"{type(error).__name__}: {error}"

    def _open_session(self, accept: Callable[[Observation], bool] | None) -> ProbeGenSession:
        """The tree search this engine runs (``accept``: the spurious filter's say on a difference)."""
        context = self.context
        return ProbeGenSession(
            context.implementations,
            chat=self.chat,
            signature=context.signature,
            comparison=context.comparison,
            spec=self.model.spec,
            requirement=context.require,
            accept=accept,
            limits=context.limits,
            isolation=context.isolation,
            seed=context.seed,
            should_stop=self._should_stop,
            on_node=self._take,
            on_observed=self._observed,
            deadline=self.deadline,
            store=self.model.store,
            run_parameters={"strategy": str(self.strategy), "k": self.k, "d": self.d, "engine": self.name},
        )

    def _should_stop(self) -> bool:
        if self._stop.is_set():
            return True
        # A model that answers without code at every node of the first level will not start now.
        return self._nodes >= self.k and self._without_code == self._nodes

    def _take(self, node: ProbeNode) -> None:
        """A node was evaluated: count it, queue its inputs not queued yet."""
        self._nodes += 1
        if node.code is None:
            self._without_code += 1
            if not self._first_answer:
                self._first_answer = " ".join(node.answer.split())[:80]
        self._observed(node.observations)

    def _observed(self, observations: Sequence[Observation]) -> None:
        """A node's inputs ran: queue them, differentiating ones first (before any filter's say)."""
        ordered = [o.input for o in observations if o.divergent] + [o.input for o in observations if not o.divergent]
        with self._lock:
            for item in ordered:
                if item.key not in self._queued:
                    self._queued.add(item.key)
                    self._ready.append(item)

    def _stop_reason(self) -> EngineCannotProceed:
        model = self.chat.model
        if self._crash is not None:
            return _stop("failed", f"ProbeGen stopped: {self._crash}")
        result = self._result
        calls = result.calls if result is not None else self._nodes
        if self._nodes and self._without_code == self._nodes:
            return _stop(
                "failed",
                f"model {model} answered without code in all {self._nodes} answers "
                f"(first: {self._first_answer!r})",
            )
        if result is None:
            return _stop("exhausted", "stopped before the tree search began")
        tree = f"{self.strategy} K={self.k} D={self.d}"
        if result.reason.startswith("failed"):
            why = result.reason.removeprefix("failed: ")
            return _stop("failed", f"model {model}: {why} (after {calls} calls; the other engines went on)")
        if result.reason == "found":
            assert result.found is not None
            return _stop(
                "exhausted",
                f"ProbeGen found a differentiating probe at node {result.found.path} ({calls} calls, {tree})",
            )
        if result.reason == "stopped":
            return _stop("exhausted", f"stopped after {calls} calls")
        return _stop("exhausted", f"ProbeGen tree ({tree}) complete: {calls} calls, {self._proposed} inputs")

    def usage(self) -> dict[str, Any]:
        """This engine's model usage (calls made by its tree search)."""
        session = self._session
        return session.usage.as_dict() if session is not None else {}


def _stop(reason: StopReason, message: str) -> EngineCannotProceed:
    return EngineCannotProceed(reason, message)
