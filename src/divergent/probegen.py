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
      → run on every implementation → compared with the equality policy
      → differentiating?  ─ yes, and ``accept(observation)`` agrees → a success (a leaf)
                          └ no → feedback, the prompt of its children

Strategies (Sec. 4.1) say how many children a node at each depth gets, up to depth ``D``:
Full (``K`` everywhere), Top (``K`` at the top, then 1), Decreasing (``K``, ``K-1``, ... at least 1),
Increasing (``K``, ``K+1``, ...), Halving (``K``, ``K//2``, ... at least 1) and Doubling (``K``,
``2K``, ...). The default, as the paper chose, is Decreasing with ``K = 3`` and ``D = 4``: at most
3 + 6 + 6 + 6 = 21 calls. :func:`max_calls` gives the bound for any strategy.

Two ways to drive a :class:`ProbeGenSession`:

- :meth:`ProbeGenSession.search`: breadth first, stopping at the first success (what ``check``'s
  LLM engine does);
- :meth:`ProbeGenSession.expand`: one node's next ``k`` children, for callers that shape the tree
  themselves (sampling full trees for the search-strategy analysis, :mod:`divergent.analysis.trees`).

Every node is stored as it is made: one unit per node (key: its path, ``"0.2.1"``) of a run of kind
``"probegen"`` in :class:`divergent.store.Store`, and the whole tree is JSON
(:meth:`ProbeGenSession.tree`, :func:`tree_from_json`). Each call's ``sample_index`` is the node's
index among its siblings, so a rerun of the same tree is answered from the response cache.

Threads: a session belongs to the thread that uses it (its store and its workers do); within
:meth:`~ProbeGenSession.expand` the ``k`` model calls of one node go out concurrently.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import enum
import hashlib
import importlib.resources
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from divergent.errors import InvalidArgument, LLMError
from divergent.judge import nonconformity
from divergent.llm.chat import ChatModel, Completion, Message, Usage
from divergent.llm.extract import extract_code
from divergent.model import Implementation, Input, Observation, Outcome, OutcomeKind, Signature
from divergent.policy import DEFAULT_POLICY, EqualityPolicy
from divergent.sandbox import Limits
from divergent.sandbox.generators import DEFAULT_FUNCTION, GeneratedInputs, run_generator
from divergent.values import render

__all__ = [
    "DEFAULT_D",
    "DEFAULT_K",
    "DEFAULT_STRATEGY",
    "ProbeGenResult",
    "ProbeGenSession",
    "ProbeNode",
    "ProbeResult",
    "Strategy",
    "branching",
    "max_calls",
    "tree_from_json",
]

DEFAULT_K = 3
DEFAULT_D = 4
#: the tree file format :mod:`divergent.analysis.trees` reads
TREE_FORMAT = "divergent.probegen-tree"
TREE_VERSION = 1
RUN_KIND = "probegen"
#: longest source shown per implementation (a prompt past the context window helps no one)
MAX_SOURCE_CHARS = 12_000
#: longest rendering of one output in the feedback
MAX_OUTPUT_CHARS = 300
#: feedback lines kept per list (the counts are always given)
MAX_FEEDBACK_LINES = 20
#: longest earlier answer repeated in a prompt (the code block is what matters)
MAX_ANSWER_CHARS = 8_000

#: ``accept(observation) -> bool``: whether a differentiating input counts (the spurious filter's hook)
AcceptHook = Callable[[Observation], bool]
#: runs inputs on every implementation: one tuple of outcomes per input (None: not run)
Executor = Callable[[Sequence[Input]], Sequence[tuple[Outcome, ...] | None]]


class Strategy(enum.StrEnum):
    """How many children a node gets at each depth (Sec. 4.1)."""

    FULL = "full"
    TOP = "top"
    DECREASING = "decreasing"
    INCREASING = "increasing"
    HALVING = "halving"
    DOUBLING = "doubling"


DEFAULT_STRATEGY = Strategy.DECREASING


def branching(strategy: Strategy | str, k: int, depth: int) -> int:
    """Children of a node at ``depth`` (the root is depth 0) under ``strategy`` with parameter ``k``."""
    strategy = _strategy(strategy)
    if k < 1:
        raise InvalidArgument(f"K={k!r} must be >= 1")
    if depth < 0:
        raise InvalidArgument(f"depth={depth!r} must be >= 0")
    if strategy is Strategy.FULL:
        return k
    if strategy is Strategy.TOP:
        return k if depth == 0 else 1
    if strategy is Strategy.DECREASING:
        return max(1, k - depth)
    if strategy is Strategy.INCREASING:
        return k + depth
    if strategy is Strategy.HALVING:
        return max(1, k >> depth)
    return k << depth  # doubling


def max_calls(strategy: Strategy | str, k: int, d: int) -> int:
    """Model calls of a full tree of depth ``d`` (the most a search can make)."""
    if d < 1:
        raise InvalidArgument(f"D={d!r} must be >= 1")
    total, width = 0, 1
    for depth in range(d):
        width *= branching(strategy, k, depth)
        total += width
    return total


def _strategy(value: Strategy | str) -> Strategy:
    try:
        return Strategy(str(value).lower())
    except ValueError:
        raise InvalidArgument(
            f"strategy {value!r}: choose from {', '.join(s.value for s in Strategy)}"
        ) from None


# ---------------------------------------------------------------------------------------------
# Nodes


@dataclass
class ProbeResult:
    """One input of a node, with what every implementation did (rendered), or why it was not run."""

    call: str
    outputs: tuple[str, ...] = ()
    #: behaviour classes (implementation indices); one class = all the same
    classes: tuple[tuple[int, ...], ...] = ()
    differentiating: bool = False
    #: the accept hook's word on a differentiating input (None: not asked)
    accepted: bool | None = None
    #: why it was not run (annotations, precondition), or "" when it ran
    rejected: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "call": self.call,
            "outputs": list(self.outputs),
            "classes": [list(c) for c in self.classes],
            "differentiating": self.differentiating,
            "accepted": self.accepted,
            "rejected": self.rejected,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ProbeResult:
        return cls(
            call=str(data.get("call", "")),
            outputs=tuple(data.get("outputs", ())),
            classes=tuple(tuple(c) for c in data.get("classes", ())),
            differentiating=bool(data.get("differentiating", False)),
            accepted=data.get("accepted"),
            rejected=str(data.get("rejected", "")),
        )


@dataclass
class ProbeNode:
    """One model call of the tree: its prompt, answer, generator run, probes and feedback.

    The root (``path == ""``, depth 0) is not a call: it holds the first prompt's children.
    """

    path: str
    depth: int
    #: position among its siblings; also the call's ``sample_index``
    index: int = 0
    parent: ProbeNode | None = field(default=None, repr=False, compare=False)
    children: list[ProbeNode] = field(default_factory=list, repr=False)
    #: the last user message sent (the task for depth 1, the parent's feedback below)
    prompt: str = ""
    answer: str = ""
    code: str | None = None
    #: how the generator run ended (as :meth:`GeneratedInputs.as_dict`), None when there was no code
    generator: dict[str, Any] | None = None
    probes: list[ProbeResult] = field(default_factory=list)
    #: what the children of this node are told about it
    feedback: str = ""
    #: some input it produced made the implementations differ
    differentiating: bool = False
    #: differentiating, and the accept hook took at least one such input: the search may stop here
    success: bool = False
    #: the model call failed or gave no code ("" when it did)
    error: str = ""
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    #: the live inputs and observations (not serialised), for engines that hand them on
    inputs: tuple[Input, ...] = field(default=(), repr=False, compare=False)
    observations: tuple[Observation, ...] = field(default=(), repr=False, compare=False)

    @property
    def is_root(self) -> bool:
        return self.depth == 0

    def walk(self) -> Iterator[ProbeNode]:
        """This node and all below it, depth first, in sibling order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def branch(self) -> list[ProbeNode]:
        """The nodes from the first level down to this one (empty for the root)."""
        nodes = []
        node: ProbeNode | None = self
        while node is not None and not node.is_root:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def as_dict(self, *, children: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "depth": self.depth,
            "index": self.index,
            "differentiating": self.differentiating,
            "success": self.success,
            "error": self.error,
            "usage": self.usage.as_dict(),
            "seconds": round(self.seconds, 3),
            "prompt": self.prompt,
            "answer": self.answer,
            "code": self.code,
            "generator": self.generator,
            "probes": [probe.as_dict() for probe in self.probes],
            "feedback": self.feedback,
        }
        if children:
            data["children"] = [child.as_dict() for child in self.children]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], parent: ProbeNode | None = None) -> ProbeNode:
        usage = data.get("usage") or {}
        node = cls(
            path=str(data.get("path", "")),
            depth=int(data.get("depth", 0)),
            index=int(data.get("index", 0)),
            parent=parent,
            prompt=str(data.get("prompt", "")),
            answer=str(data.get("answer", "")),
            code=data.get("code"),
            generator=data.get("generator"),
            probes=[ProbeResult.from_dict(p) for p in data.get("probes", ())],
            feedback=str(data.get("feedback", "")),
            differentiating=bool(data.get("differentiating", False)),
            success=bool(data.get("success", data.get("differentiating", False))),
            error=str(data.get("error", "")),
            usage=Usage(**{k: usage[k] for k in Usage.__dataclass_fields__ if k in usage}),
            seconds=float(data.get("seconds", 0.0)),
        )
        node.children = [cls.from_dict(child, node) for child in data.get("children", ())]
        return node


def tree_from_json(data: Mapping[str, Any] | str | Path) -> tuple[ProbeNode, dict[str, Any]]:
    """The root node and the tree's metadata from :meth:`ProbeGenSession.tree` output (a mapping,
    JSON text, or a path to a JSON file)."""
    if isinstance(data, Path) or (isinstance(data, str) and not data.lstrip().startswith("{")):
        try:
            data = json.loads(Path(data).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise InvalidArgument(f"cannot read a ProbeGen tree from {data}: {error}") from None
    elif isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError as error:
            raise InvalidArgument(f"not a ProbeGen tree (bad JSON): {error}") from None
    if not isinstance(data, Mapping) or data.get("format") != TREE_FORMAT:
        raise InvalidArgument(f"not a ProbeGen tree: expected \"format\": \"{TREE_FORMAT}\"")
    if not isinstance(data.get("children"), list):
        raise InvalidArgument("not a ProbeGen tree: no \"children\" list")
    metadata = {k: v for k, v in data.items() if k != "children"}
    root = ProbeNode.from_dict({"path": "", "depth": 0, "prompt": data.get("prompt", ""), "children": data["children"]})
    return root, metadata


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
# Prompts


def _template(name: str) -> Template:
    text = (importlib.resources.files("divergent.llm") / "prompts" / f"probegen_{name}.txt").read_text(
        encoding="utf-8"
    )
    return Template(text)


_TEMPLATE_NAMES = (
    "system", "task", "feedback_same", "feedback_different", "feedback_irrelevant", "feedback_error",
    "feedback_no_code",
)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_outcome(outcome: Outcome) -> str:
    """An output as the feedback shows it: the value, ``ValueError: message``, or what went wrong."""
    if outcome.kind is OutcomeKind.RETURNED:
        return _shorten(render(outcome.value, limit=MAX_OUTPUT_CHARS), MAX_OUTPUT_CHARS)
    if outcome.kind is OutcomeKind.RAISED:
        return _shorten(f"raised {outcome.describe()}", MAX_OUTPUT_CHARS)
    return f"{outcome.kind.value} ({outcome.describe()})"


def _rendered_outputs(observation: Observation) -> tuple[str, ...]:
    outputs = [render_outcome(o) for o in observation.outcomes]
    if observation.divergent and len(set(outputs)) == 1:
        # The values agree: the difference is in what the calls did to their arguments (or printed).
        extra = []
        for outcome in observation.outcomes:
            after = render(outcome.args_after, limit=120) if outcome.args_after is not None else "unchanged"
            printed = f", printed {outcome.stdout[:80]!r}" if outcome.stdout else ""
            extra.append(f"; arguments after the call: {after}{printed}")
        outputs = [o + e for o, e in zip(outputs, extra, strict=True)]
    return tuple(outputs)


# ---------------------------------------------------------------------------------------------
# The session


class ProbeGenSession:
    """A ProbeGen search tree over some implementations, grown call by call.

    ``executor`` runs inputs on every implementation (e.g. a :class:`~divergent.sandbox.WorkerPool`'s
    ``run``); without one the session starts its own pool (``limits``, ``isolation``) on first use
    and closes it in :meth:`close`. ``requirement`` is the precondition on inputs (annotations are
    always checked). ``accept`` decides whether a differentiating input counts (the spurious
    filter's hook); without it every one does. ``store``: a :class:`~divergent.store.Store`, a
    path, None for the default store, or False to keep nothing. ``should_stop`` is asked between
    nodes (an engine being closed).
    """

    def __init__(
        self,
        implementations: Sequence[Implementation],
        *,
        chat: ChatModel,
        signature: Signature | None = None,
        policy: EqualityPolicy = DEFAULT_POLICY,
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
        self.signature = signature if signature is not None else self.implementations[0].signature
        self.function = self.implementations[0].entry_point
        self.chat = chat
        self.policy = policy
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
        self.parallel = max(1, parallel)
        self.function_name = function_name
        self.root = ProbeNode(path="", depth=0)
        self.usage = Usage()
        self.calls = 0
        self._templates = {name: _template(name) for name in _TEMPLATE_NAMES}
        self._executor = executor
        self._own_pool: Any = None
        self._system = self._templates["system"].substitute(
            function_name=function_name, max_inputs=max_inputs
        )
        self.root.prompt = self._task_prompt()
        self._store_spec = store
        self._store: Any = None
        self._run_id: str | None = None
        self._run_parameters = dict(run_parameters or {})
        self._finished = False

    # -- prompts ----------------------------------------------------------------------------------

    def _task_prompt(self) -> str:
        task = f"**Task description**\n\n{self.spec}\n\n" if self.spec else ""
        versions = []
        for number, impl in enumerate(self.implementations, start=1):
            source = impl.source.rstrip()
            if len(source) > MAX_SOURCE_CHARS:
                source = source[:MAX_SOURCE_CHARS] + f"\n# ... ({len(impl.source) - MAX_SOURCE_CHARS} more characters)"
            versions.append(f"**Version {number}** (`{impl.label}`)\n\n```python\n{source}\n```")
        return self._templates["task"].substitute(
            task_section=task,
            function=self.function,
            signature=str(self.signature),
            versions="\n\n".join(versions),
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
            messages.append({"role": "assistant", "content": _shorten(node.answer, MAX_ANSWER_CHARS)})
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
                    messages, temperature=self.temperature, max_tokens=self.max_tokens, sample_index=index
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
        node.usage = _completion_usage(completion)
        # the session counts what it spends now: a cached answer is a cached call, not its tokens
        self.usage = self.usage + (Usage(cached_calls=1) if completion.cached else node.usage)
        node.answer = completion.text
        node.code = extract_code(completion.text, self.function_name)
        if node.code is None:
            node.error = "the answer contains no code"
            node.feedback = self._templates["feedback_no_code"].substitute(function_name=self.function_name)
            node.seconds = completion.seconds + time.monotonic() - evaluated
            return
        generated = run_generator(
            node.code,
            function=self.function_name,
            signature=self.signature,
            max_inputs=self.max_inputs,
            seconds=self.generator_seconds,
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
                outputs=_rendered_outputs(observation),
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
        node.feedback = self._feedback(generated, probes, rejected, node)
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
                from divergent.sandbox import WorkerPool

                self._own_pool = WorkerPool(
                    self.implementations, limits=self.limits, isolation=self.isolation,
                    compare_mutation=self.policy.compare_mutation,
                )
            executor = self._own_pool.run
        results = executor(inputs)
        return [
            None if outcomes is None else self.policy.observe(item, tuple(outcomes))
            for item, outcomes in zip(inputs, results, strict=True)
        ]

    def _call(self, item: Input) -> str:
        return item.call(self.function, max_length=200)

    # -- feedback (Appx. D) -----------------------------------------------------------------------

    def _line(self, probe: ProbeResult) -> str:
        if not probe.differentiating:
            shown = probe.outputs[0] if probe.outputs else "?"
            return f"- For input `{probe.call}` the outputs were equal: {shown}"
        if len(probe.outputs) == 2:
            return f"- For input `{probe.call}` the outputs were different: {probe.outputs[0]} vs. {probe.outputs[1]}"
        shown = " | ".join(f"Version {n}: {o}" for n, o in enumerate(probe.outputs, start=1))
        return f"- For input `{probe.call}` the outputs were different: {shown}"

    @staticmethod
    def _capped(lines: list[str], what: str) -> str:
        if not lines:
            return f"(no {what})"
        text = "\n".join(lines[:MAX_FEEDBACK_LINES])
        if len(lines) > MAX_FEEDBACK_LINES:
            text += f"\n- ... and {len(lines) - MAX_FEEDBACK_LINES} more {what}"
        return text

    def _problems(self, generated: GeneratedInputs, rejected: list[ProbeResult]) -> str:
        notes = []
        if rejected:
            lines = [f"- Input `{p.call}` was discarded: {p.rejected}" for p in rejected]
            notes.append(
                f"{len(rejected)} input(s) were discarded because they do not fit the signature "
                f"`{self.function}{self.signature}` or the task's preconditions:\n"
                + self._capped(lines, "discarded inputs")
            )
        if generated.dropped:
            reasons = "; ".join(generated.drop_reasons)
            notes.append(f"{generated.dropped} yielded item(s) were not valid calls of `{self.function}`: {reasons}")
        return ("\n" + "\n\n".join(notes) + "\n") if notes else ""

    def _feedback(
        self, generated: GeneratedInputs, probes: list[ProbeResult], rejected: list[ProbeResult], node: ProbeNode
    ) -> str:
        equal = [self._line(p) for p in probes if not p.differentiating and not p.rejected]
        different = [self._line(p) for p in probes if p.differentiating]
        values = {
            "function_name": self.function_name,
            "function": self.function,
            "equal_lines": self._capped(equal, "non-differentiating inputs"),
            "different_lines": self._capped(different, "differentiating inputs"),
            "problems": self._problems(generated, rejected),
        }
        if generated.error is not None:
            ran = [line for line in equal + different]
            produced = (
                f"It produced {len(generated.inputs)} input(s) before that:\n" + self._capped(ran, "inputs")
                if generated.inputs else "It produced no inputs."
            )
            return self._templates["feedback_error"].substitute(values, error=generated.error, produced=produced)
        if not probes and not rejected:
            return self._templates["feedback_error"].substitute(
                values, error="it yielded no inputs", produced="It must yield at least one input."
            )
        if node.success:
            return self._templates["feedback_different"].substitute(values)
        if node.differentiating:
            return self._templates["feedback_irrelevant"].substitute(values)
        return self._templates["feedback_same"].substitute(values)

    # -- search -------------------------------------------------------------------------------------

    def search(
        self, *, strategy: Strategy | str = DEFAULT_STRATEGY, k: int = DEFAULT_K, d: int = DEFAULT_D
    ) -> ProbeGenResult:
        """Breadth first under ``strategy`` up to depth ``d``, stopping at the first success.

        A model call that fails for good ends the search (reason "failed: ..."): later calls would
        fail the same way. Nodes without code or with a broken generator are expanded like any
        other: their children see what went wrong.
        """
        strategy = _strategy(strategy)
        max_calls(strategy, k, d)  # validates k and d
        frontier = [self.root]
        for depth in range(d):
            next_frontier: list[ProbeNode] = []
            for parent in frontier:
                if self.should_stop():
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

    def sample_tree(self, *, strategy: Strategy | str = Strategy.FULL, k: int = 5, d: int = 5) -> ProbeNode:
        """The whole tree under ``strategy`` (successes are leaves), for the search-strategy
        analysis (Sec. 4.1 samples Full with K = D = 5). Returns the root."""
        strategy = _strategy(strategy)
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

    def tree(self, *, pair: str | None = None, k: int | None = None, d: int | None = None) -> dict[str, Any]:
        """The whole tree as JSON-serialisable data, in the tree-file format of
        :mod:`divergent.analysis.trees` (``pair``, ``K`` and ``D`` are that format's labels: the
        pair's name and the shape the tree was sampled with); read back with :func:`tree_from_json`.

        Each node carries ``differentiating`` (its probe made the implementations differ) and
        ``success`` (and the ``accept`` hook took it)."""
        return {
            "format": TREE_FORMAT,
            "version": TREE_VERSION,
            "pair": pair or " vs ".join(impl.label for impl in self.implementations),
            "K": k,
            "D": d,
            "function": self.function,
            "implementations": [impl.label for impl in self.implementations],
            "model": self.chat.model,
            "temperature": self.temperature,
            "spec": self.spec,
            "system": self._system,
            "prompt": self.root.prompt,
            "run_id": self._run_id,
            "calls": self.calls,
            "usage": self.usage.as_dict(),
            "children": [child.as_dict() for child in self.root.children],
        }

    def write_tree(self, path: str | Path, **labels: Any) -> Path:
        """Write :meth:`tree` (``labels``: its ``pair``, ``k``, ``d``) to a JSON file."""
        target = Path(path)
        target.write_text(json.dumps(self.tree(**labels), indent=1, ensure_ascii=False), encoding="utf-8")
        return target

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


def _completion_usage(completion: Completion) -> Usage:
    """What one answer cost when it was made (a cached answer keeps its tokens and price, so a tree
    read back from the cache records the same costs; it counts as a cached call, not a call)."""
    return Usage(
        calls=0 if completion.cached else 1,
        cached_calls=1 if completion.cached else 0,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        cost=completion.cost,
        seconds=completion.seconds,
    )
