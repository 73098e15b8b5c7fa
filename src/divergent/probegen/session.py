"""ProbeGen: a language model writes input generators, sees what they did, and tries again.

After Sec. 3-4 and Appx. D of the ProbeGen paper. The model sees every implementation's source
(white box), the task description when there is one, and — on each branch of a search tree — its
earlier answers with their *execution feedback*: which inputs made the implementations differ and
which did not, with every implementation's output. It answers with a generator
``create_fn_inputs()`` yielding ``{"args": [...], "kwargs": {...}}``.

One node of the tree is one model call::

    prompt (system + task + the branch's earlier answers and feedback)
      → answer → code (:func:`divergent.llm.extract.extract_code`)
      → generator run in the sandbox (:func:`divergent.sandbox.generators.run_generator`)
      → inputs checked against the annotations and the precondition
      → run on every implementation → compared (the search's comparison)
      → differentiating?  ─ yes, and ``accept(observation)`` agrees → a success (a leaf)
                          └ no → feedback, the prompt of its children

Strategies (Sec. 4.1, :mod:`divergent.probegen.strategies`) say how many children a node at each
depth gets, up to depth ``D``; the nodes and the tree are :mod:`divergent.probegen.tree`.

Two ways to drive a :class:`ProbeGenSession`:

- :meth:`ProbeGenSession.search`: breadth first, stopping at the first success (what ``check``'s
  LLM engine does);
- :meth:`ProbeGenSession.expand`: one node's next ``k`` children, for callers that shape the tree
  themselves (sampling full trees for the search-strategy analysis, :mod:`divergent.probegen.analysis`).

Every node is stored as it is made: one unit per node (key: its path, ``"0.2.1"``) of a run of kind
``"probegen"`` in :class:`divergent.store.Store`, and the whole tree is a
:class:`~divergent.probegen.tree.ProbeTree` (:meth:`ProbeGenSession.tree`), written and read back in
the one tree-file format. Each call's ``sample_index`` is the node's
index among its siblings, so a rerun of the same tree is answered from the response cache.

Threads: a session belongs to the thread that uses it (its store and its workers do); within
:meth:`~ProbeGenSession.expand` the ``k`` model calls of one node go out concurrently.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from divergent.comparison import Comparison
from divergent.errors import InvalidArgument, LLMError
from divergent.llm.chat import ChatModel, Completion, Message, Usage, with_deadline
from divergent.llm.extract import extract_code
from divergent.llm.prompts import render as render_prompt
from divergent.llm.prompts import show_sources
from divergent.policy import DEFAULT_POLICY
from divergent.preconditions import nonconformity
from divergent.probegen.feedback import feedback, rendered_outputs, shorten
from divergent.probegen.strategies import (
    DEFAULT_D,
    DEFAULT_K,
    DEFAULT_STRATEGY,
    TreeStrategy,
    as_strategy,
    branching,
    max_calls,
)
from divergent.probegen.tree import ProbeNode, ProbeResult, ProbeTree, write_tree
from divergent.programs import Program, Signature
from divergent.records import Input, Observation, Outcome
from divergent.sandbox.generators import DEFAULT_FUNCTION, run_generator
from divergent.sandbox.limits import Limits

__all__ = ["ProbeGenResult", "ProbeGenSession"]

RUN_KIND = "probegen"
#: longest earlier answer repeated in a prompt (the code block is what matters)
MAX_ANSWER_CHARS = 8_000

#: ``accept(observation) -> bool``: whether a differentiating input counts (the spurious filter's hook)
AcceptHook = Callable[[Observation], bool]
#: runs inputs on every implementation: one tuple of outcomes per input (None: not run)
Executor = Callable[[Sequence[Input]], Sequence[tuple[Outcome, ...] | None]]


@dataclass(frozen=True)
class ProbeGenResult:
    """How a :meth:`ProbeGenSession.search` ended."""

    #: the first successful node, or None
    found: ProbeNode | None
    #: model calls made (nodes below the root)
    calls: int
    usage: Usage
    #: "found", "exhausted" (the tree is complete), "stopped" (asked to) or "failed: <why>"
    reason: str


# ---------------------------------------------------------------------------------------------
# The session


class ProbeGenSession:
    """A ProbeGen search tree over some programs, grown call by call.

    ``executor`` runs inputs on every program (a runner's ``run``) and ``signature`` is what the
    generators' inputs must fit; without them the programs are Python functions: the session reads
    the first one's signature and starts its own worker pool (``limits``, ``isolation``) on first
    use, closed in :meth:`close`. ``comparison`` compares the outcomes. ``requirement`` is the precondition on inputs (annotations are
    always checked). ``accept`` decides whether a differentiating input counts (the spurious
    filter's hook); without it every one does. ``store``: a :class:`~divergent.store.Store`, a
    path, None for the default store, or False to keep nothing. ``should_stop`` is asked between
    nodes (an engine being closed). ``on_node`` hears of each node once it is evaluated;
    ``on_observed`` of each node's observations as soon as they ran, before ``accept`` judges a
    difference (a model call that may not end in time), so an engine can hand them on at once.
    ``deadline`` (``time.monotonic()``; None: none) ends the session's work: no model call, generator
    or input runs past it.
    """

    def __init__(
        self,
        implementations: Sequence[Program],
        *,
        chat: ChatModel,
        signature: Signature | None = None,
        comparison: Comparison = DEFAULT_POLICY,
        spec: str | None = None,
        requirement: Callable[[Input], bool] | None = None,
        accept: AcceptHook | None = None,
        executor: Executor | None = None,
        limits: Limits | None = None,
        isolation: str | None = None,
        temperature: float = 0.8,
        max_tokens: int | None = None,
        max_inputs: int = 50,
        generator_seconds: float = 10.0,
        seed: int = 0,
        store: Any = None,
        run_parameters: Mapping[str, Any] | None = None,
        should_stop: Callable[[], bool] | None = None,
        on_node: Callable[[ProbeNode], None] | None = None,
        on_observed: Callable[[Sequence[Observation]], None] | None = None,
        deadline: float | None = None,
        parallel: int = 4,
        function_name: str = DEFAULT_FUNCTION,
    ) -> None:
        if len(implementations) < 2:
            raise InvalidArgument(f"ProbeGen needs at least two implementations, got {len(implementations)}")
        if max_inputs < 1:
            raise InvalidArgument(f"max_inputs={max_inputs!r} must be >= 1")
        if not 0.0 <= temperature <= 2.0:
            raise InvalidArgument(f"temperature={temperature!r} must be between 0 and 2")
        self.implementations = tuple(implementations)
        # (without a signature and an executor the programs are Python functions: see the class)
        self.signature = signature if signature is not None else self.implementations[0].signature  # type: ignore[attr-defined]
        self.function = self.implementations[0].display_name
        self.chat = chat
        self.comparison = comparison
        self.spec = spec.strip() if spec and spec.strip() else None
        self.requirement = requirement
        self.accept = accept
        self.limits = limits or Limits()
        self.isolation = isolation
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_inputs = max_inputs
        self.generator_seconds = generator_seconds
        self.seed = seed
        self.should_stop = should_stop or (lambda: False)
        self.on_node = on_node
        self.on_observed = on_observed
        self.deadline = deadline
        self.parallel = max(1, parallel)
        self.function_name = function_name
        self.root = ProbeNode(path="", depth=0)
        self.usage = Usage()
        self.calls = 0
        self._executor = executor
        self._own_pool: Any = None
        self._system = render_prompt("probegen_system", function_name=function_name, max_inputs=max_inputs)
        self.root.prompt = self._task_prompt()
        self._store_spec = store
        self._store: Any = None
        self._run_id: str | None = None
        self._run_parameters = dict(run_parameters or {})
        self._finished = False

    # -- prompts ----------------------------------------------------------------------------------

    def _task_prompt(self) -> str:
        task = f"**Task description**\n\n{self.spec}\n\n" if self.spec else ""
        return render_prompt(
            "probegen_task",
            task_section=task,
            function=self.function,
            signature=str(self.signature),
            versions=show_sources(self.implementations),
            function_name=self.function_name,
        )

    def messages_for(self, parent: ProbeNode) -> list[Message]:
        """The conversation a child of ``parent`` is sampled from: the task, then each earlier
        answer on the branch with its feedback (Eq. 1 of the paper)."""
        messages: list[Message] = [
            {"role": "system", "content": self._system},
            {"role": "user", "content": self.root.prompt},
        ]
        for node in parent.branch():
            messages.append({"role": "assistant", "content": shorten(node.answer, MAX_ANSWER_CHARS)})
            messages.append({"role": "user", "content": node.feedback})
        return messages

    # -- growing the tree -------------------------------------------------------------------------

    def expand(self, node: ProbeNode | None, k: int) -> list[ProbeNode]:
        """Sample ``k`` more children of ``node`` (the root when None), evaluate them, store them.

        Children are numbered on from the ones ``node`` already has, so their ``sample_index`` is
        stable. Raises :class:`LLMError` when a model call fails for good (the children evaluated
        before are kept and stored); a success node is never expanded (:class:`InvalidArgument`).
        """
        parent = node or self.root
        if k < 1:
            raise InvalidArgument(f"k={k!r} must be >= 1")
        if parent.success:
            raise InvalidArgument(f"node {parent.path!r} already succeeded: it is a leaf")
        messages = self.messages_for(parent)
        first = len(parent.children)
        indices = list(range(first, first + k))
        answers = self._sample(messages, indices)
        children: list[ProbeNode] = []
        failure: LLMError | None = None
        for index, answer in zip(indices, answers, strict=True):
            if self._over():
                break  # the search is over (its budget spent): no more generators are run
            if isinstance(answer, LLMError):
                failure = failure or answer
                continue
            child = ProbeNode(
                path=f"{parent.path}.{index}" if parent.path else str(index),
                depth=parent.depth + 1,
                index=index,
                parent=parent,
                prompt=messages[-1]["content"],
            )
            self._evaluate(child, answer)
            parent.children.append(child)
            children.append(child)
            self._record(child)
        if failure is not None:
            raise failure
        return children

    def _sample(self, messages: list[Message], indices: list[int]) -> list[Completion | LLMError]:
        def call(index: int) -> Completion | LLMError:
            try:
                return self.chat.complete(
                    messages, temperature=self.temperature, max_tokens=self.max_tokens, sample_index=index,
                    **with_deadline(self.deadline),
                )
            except LLMError as error:
                return error

        if len(indices) == 1 or self.parallel == 1:
            return [call(index) for index in indices]
        workers = min(len(indices), self.parallel)
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="probegen") as pool:
            return list(pool.map(call, indices))

    def _evaluate(self, node: ProbeNode, completion: Completion) -> None:
        evaluated = time.monotonic()
        self.calls += 1
        node.usage = completion.usage()
        # the session counts what it spends now: a cached answer is a cached call, not its tokens
        self.usage = self.usage + (Usage(cached_calls=1) if completion.cached else node.usage)
        node.answer = completion.text
        node.code = extract_code(completion.text, self.function_name)
        if node.code is None:
            node.error = "the answer contains no code"
            node.feedback = render_prompt("probegen_feedback_no_code", function_name=self.function_name)
            node.seconds = completion.seconds + time.monotonic() - evaluated
            return
        generated = run_generator(
            node.code,
            function=self.function_name,
            signature=self.signature,
            max_inputs=self.max_inputs,
            seconds=self.generator_time(),
            limits=self.limits,
            isolation=self.isolation,
            seed=self.seed,
            how_generated="llm",
        )
        node.generator = generated.as_dict()
        accepted: list[Input] = []
        rejected: list[ProbeResult] = []
        for item in generated.inputs:
            why = nonconformity(item, self.signature)
            if why is None and self.requirement is not None and not _holds(self.requirement, item):
                why = "does not meet the precondition"
            if why is None:
                accepted.append(item)
            else:
                rejected.append(ProbeResult(call=self._call(item), rejected=why))
        observations = self._run(accepted)
        probes: list[ProbeResult] = []
        for item, observation in zip(accepted, observations, strict=True):
            if observation is None:
                probes.append(ProbeResult(call=self._call(item), rejected="not run (the run's time is up)"))
                continue
            probe = ProbeResult(
                call=self._call(item),
                outputs=rendered_outputs(observation),
                classes=observation.classes,
                differentiating=observation.divergent,
            )
            if observation.divergent:
                node.differentiating = True
                if not node.success:
                    probe.accepted = self._accepts(observation)
                    node.success = probe.accepted
            probes.append(probe)
        node.probes = probes + rejected
        node.inputs = tuple(accepted)
        node.observations = tuple(o for o in observations if o is not None)
        node.feedback = feedback(
            generated, probes, rejected, node, function=self.function, signature=self.signature,
            function_name=self.function_name,
        )
        node.seconds = completion.seconds + time.monotonic() - evaluated

    def _accepts(self, observation: Observation) -> bool:
        if self.accept is None:
            return True
        try:
            return bool(self.accept(observation))
        except Exception:  # noqa: BLE001 - a hook that fails does not veto a real difference
            return True

    def _run(self, inputs: Sequence[Input]) -> list[Observation | None]:
        if not inputs:
            return []
        executor = self._executor
        if executor is None:
            if self._own_pool is None:
                from divergent.sandbox.pool import WorkerPool

                self._own_pool = WorkerPool(
                    self.implementations, limits=self.limits, isolation=self.isolation,  # type: ignore[arg-type]
                    compare_mutation=self.comparison.record_arguments,
                )
            executor = self._own_pool.run
        results = executor(inputs) if self.deadline is None else executor(inputs, deadline=self.deadline)  # type: ignore[call-arg]
        observations = [
            None if outcomes is None else self.comparison.observe(item, tuple(outcomes))
            for item, outcomes in zip(inputs, results, strict=True)
        ]
        if self.on_observed is not None:
            with contextlib.suppress(Exception):
                self.on_observed([o for o in observations if o is not None])
        return observations

    def _call(self, item: Input) -> str:
        return item.call(self.function, max_length=200)

    def generator_time(self) -> float:
        """Seconds a generator may run: ``generator_seconds``, within what the deadline leaves."""
        if self.deadline is None:
            return self.generator_seconds
        return max(0.05, min(self.generator_seconds, self.deadline - time.monotonic()))

    def _over(self) -> bool:
        return self.should_stop() or (self.deadline is not None and time.monotonic() >= self.deadline)

    # -- search -------------------------------------------------------------------------------------

    def search(
        self, *, strategy: TreeStrategy | str = DEFAULT_STRATEGY, k: int = DEFAULT_K, d: int = DEFAULT_D
    ) -> ProbeGenResult:
        """Breadth first under ``strategy`` up to depth ``d``, stopping at the first success.

        A model call that fails for good ends the search (reason "failed: ..."): later calls would
        fail the same way. Nodes without code or with a broken generator are expanded like any
        other: their children see what went wrong.
        """
        strategy = as_strategy(strategy)
        max_calls(strategy, k, d)  # validates k and d
        frontier = [self.root]
        for depth in range(d):
            next_frontier: list[ProbeNode] = []
            for parent in frontier:
                if self._over():
                    return self._result(None, "stopped")
                missing = branching(strategy, k, depth) - len(parent.children)
                try:
                    children = self.expand(parent, missing) if missing > 0 else []
                except LLMError as error:
                    return self._result(None, f"failed: {error}")
                for child in children:
                    if child.success:
                        return self._result(child, "found")
                next_frontier.extend(parent.children)
            frontier = next_frontier
        return self._result(None, "exhausted")

    def sample_tree(self, *, strategy: TreeStrategy | str = TreeStrategy.FULL, k: int = 5, d: int = 5) -> ProbeNode:
        """The whole tree under ``strategy`` (successes are leaves), for the search-strategy
        analysis (Sec. 4.1 samples Full with K = D = 5). Returns the root."""
        strategy = as_strategy(strategy)
        max_calls(strategy, k, d)
        frontier = [self.root]
        for depth in range(d):
            next_frontier = []
            for parent in frontier:
                if self.should_stop():
                    return self.root
                missing = branching(strategy, k, depth) - len(parent.children)
                if missing > 0:
                    self.expand(parent, missing)
                next_frontier.extend(child for child in parent.children if not child.success)
            frontier = next_frontier
        return self.root

    def _result(self, found: ProbeNode | None, reason: str) -> ProbeGenResult:
        self._finish_run(reason)
        return ProbeGenResult(found=found, calls=self.calls, usage=self.usage, reason=reason)

    # -- records ------------------------------------------------------------------------------------

    def tree(self, *, pair: str | None = None, k: int | None = None, d: int | None = None) -> ProbeTree:
        """The whole tree (its root is this session's, live), labelled for the tree file: ``pair``
        (default: the implementations' labels) and the ``K`` and ``D`` it was sampled with.

        Each node carries ``differentiating`` (its probe made the implementations differ) and
        ``success`` (and the ``accept`` hook took it)."""
        return ProbeTree(
            root=self.root,
            pair=pair or " vs ".join(impl.label for impl in self.implementations),
            k=k,
            depth=d,
            model=self.chat.model,
            metadata={
                "function": self.function,
                "implementations": [impl.label for impl in self.implementations],
                "temperature": self.temperature,
                "spec": self.spec,
                "system": self._system,
                "run_id": self._run_id,
                "calls": self.calls,
                "usage": self.usage.as_dict(),
            },
        )

    def write_tree(self, path: str | Path, **labels: Any) -> Path:
        """Write :meth:`tree` (``labels``: its ``pair``, ``k``, ``d``) to a tree file."""
        return write_tree(self.tree(**labels), Path(path))

    @property
    def run_id(self) -> str | None:
        """The store run holding this tree's nodes (once a node was stored)."""
        return self._run_id

    def _record(self, node: ProbeNode) -> None:
        if self.on_node is not None:
            with contextlib.suppress(Exception):
                self.on_node(node)
        if self._store_spec is False:
            return
        store = self._open_store()
        if self._run_id is None:
            parameters = {
                "function": self.function,
                "implementations": [impl.label for impl in self.implementations],
                "sources": hashlib.sha256(
                    "\0".join(impl.source for impl in self.implementations).encode()
                ).hexdigest()[:16],
                "model": self.chat.model,
                "temperature": self.temperature,
                "seed": self.seed,
                "spec": bool(self.spec),
                **self._run_parameters,
            }
            self._run_id = store.create_run(RUN_KIND, parameters).id
            store.save_unit(self._run_id, "root", {"system": self._system, "prompt": self.root.prompt}, 0.0)
        store.save_unit(self._run_id, node.path, node.as_dict(children=False), node.seconds)

    def _open_store(self) -> Any:
        if self._store is None:
            from divergent.store import Store

            spec = self._store_spec
            self._store = spec if isinstance(spec, Store) else Store(spec)
        return self._store

    def _finish_run(self, reason: str) -> None:
        if self._run_id is None or self._store is None or self._finished:
            return
        self._finished = True
        with contextlib.suppress(Exception):
            self._store.save_unit(
                self._run_id, "result", {"reason": reason, "calls": self.calls, "usage": self.usage.as_dict()}, 0.0
            )
            self._store.finish_run(self._run_id, "failed" if reason.startswith("failed") else "finished")

    def close(self) -> None:
        """Close the session's own workers and store (an executor or store passed in stays open)."""
        self._finish_run("closed")
        if self._own_pool is not None:
            with contextlib.suppress(Exception):
                self._own_pool.close()
            self._own_pool = None
        if self._store is not None and self._store is not self._store_spec:
            with contextlib.suppress(Exception):
                self._store.close()
        self._store = None

    def __enter__(self) -> ProbeGenSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _holds(requirement: Callable[[Input], bool], item: Input) -> bool:
    try:
        return bool(requirement(item))
    except Exception:  # noqa: BLE001 - a predicate that raises does not hold
        return False

