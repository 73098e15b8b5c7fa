"""RandSearch (REFUTE, Sec. 5.2 and Appx. A): a language model writes a random input generator.

The model sees the implementations' source (and the task description, when given) and answers
with a function ``random_input(rng)`` that takes a :class:`random.Random` and returns one input,
``{"args": [...], "kwargs": {...}}``. A function of ``rng`` (rather than a generator of inputs) lets
divergent own the loop and the seed: every sandbox call runs the model's code behind a small driver
that seeds its own ``Random`` and yields ``random_input(rng)`` up to a few hundred times, so one
sandbox start gives many inputs and a run is reproducible for a seed.

When no implementation is trusted as a reference, REFUTE also has the model write a brute-force
solution and compares the others with it. :func:`brute_force_reference` asks for one and returns it
as an extra :class:`~divergent.programs.PythonFunction`, labelled as written by the model, that the
caller adds to the implementations *before* the search starts (``divergent check --brute-force``).
By default no brute force is asked for: the implementations are compared with each other.

Untrusted code never runs here: the generator runs through
:func:`divergent.sandbox.generators.run_generator` (its own sandboxed process, values back in the safe
encoding), the brute force runs in the search's sandboxed workers like any implementation.

Scheduling: a background engine. Its thread makes the model call (which may take seconds) and then
runs the generator in the sandbox batch after batch, keeping a bounded queue of fresh inputs that
:meth:`RandSearchEngine.propose` hands out without blocking; the portfolio polls it every turn
beside the cheap engines, under the search's one budget. A model that cannot be reached, answers
without code, or writes a generator that keeps failing (after :data:`MAX_WRITES` tries, each told
what went wrong) stops this engine with a note saying why; the other engines go on.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from divergent.engines.base import CallContext, Engine, EngineContext
from divergent.errors import EngineCannotProceed, InvalidArgument, LLMError, LoadError, StopReason
from divergent.llm.chat import ChatModel, Message
from divergent.llm.extract import extract_code
from divergent.llm.prompts import render as render_prompt
from divergent.llm.prompts import show_sources
from divergent.programs import PythonFunction, Signature
from divergent.records import Input
from divergent.sandbox.generators import GeneratedInputs, run_generator

__all__ = [
    "BRUTE_FORCE_ORIGIN",
    "GENERATOR_FUNCTION",
    "MAX_WRITES",
    "RandSearchEngine",
    "brute_force_reference",
    "generator_messages",
]

#: the function the model writes: ``random_input(rng: random.Random) -> {"args": [...], "kwargs": {...}}``
GENERATOR_FUNCTION = "random_input"
#: the driver appended to the model's code; a name the model is unlikely to use
_DRIVER_FUNCTION = "_divergent_randsearch_driver"
#: model calls for one generator: the first answer and the repairs after it failed or had no code
MAX_WRITES = 3
#: inputs asked of one sandboxed run of the generator
BATCH_INPUTS = 256
#: fresh inputs kept ready; the worker thread waits while the queue is this full
QUEUE_LIMIT = 2048
#: runs in a row that bring no new input before the engine calls the generator exhausted
MAX_STALE_RUNS = 3
#: wall seconds of one sandboxed run of the generator (its top-level code included): four call
#: timeouts, within these bounds (a run of a few hundred quick calls needs far less)
_RUN_SECONDS = (1.0, 5.0)
#: the origin of an implementation written by :func:`brute_force_reference`
BRUTE_FORCE_ORIGIN = "llm-brute-force"
_DEFAULT_SECONDS = 20.0


def _task_section(spec: str | None) -> str:
    return f"**Task description**\n\n{spec.strip()}\n\n" if spec and spec.strip() else ""


def generator_messages(
    implementations: Sequence[PythonFunction],
    signature: Signature,
    *,
    spec: str | None = None,
    small_inputs: bool = False,
    timeout: float = 2.0,
) -> list[Message]:
    """The first request for a generator: the system rules and the versions to test."""
    function = implementations[0].entry_point
    size_note = render_prompt("randsearch_small_inputs", timeout=f"{timeout:g}") if small_inputs else ""
    return [
        {"role": "system", "content": render_prompt("randsearch_system", function_name=GENERATOR_FUNCTION)},
        {
            "role": "user",
            "content": render_prompt(
                "randsearch_task",
                task_section=_task_section(spec),
                function=function,
                signature=str(signature),
                versions=show_sources(implementations),
                size_note=size_note,
                function_name=GENERATOR_FUNCTION,
            ),
        },
    ]


def driver_source(source: str, seed: int) -> str:
    """The model's code with a driver that yields ``random_input(rng)`` from a seeded ``Random``."""
    return (
        f"{source.rstrip()}\n\n\n"
        f"def {_DRIVER_FUNCTION}():\n"
        "    import random as _divergent_random\n"
        f"    rng = _divergent_random.Random({int(seed)})\n"
        "    while True:\n"
        f"        yield {GENERATOR_FUNCTION}(rng)\n"
    )


# -- the brute-force reference ----------------------------------------------------------------


def brute_force_reference(
    implementations: Sequence[PythonFunction],
    chat: ChatModel,
    *,
    spec: str | None = None,
    signature: Signature | None = None,
) -> PythonFunction:
    """Ask the model for a brute-force reference of the implementations' function (REFUTE's
    RandSearch without a trusted reference) and return it as one more implementation.

    The code is never run here: the search's sandboxed workers run it like any implementation. Its
    label says it was written by the model. Raises :class:`LLMError` when the model cannot be
    reached or answers without a usable function.
    """
    from divergent import load

    if not implementations:
        raise InvalidArgument("a brute-force reference needs at least one implementation to describe")
    function = implementations[0].entry_point
    signature = signature or load.common_signature(implementations)
    messages: list[Message] = [
        {"role": "system", "content": render_prompt("randsearch_bruteforce_system")},
        {
            "role": "user",
            "content": render_prompt(
                "randsearch_bruteforce", task_section=_task_section(spec), function=function,
                signature=str(signature), versions=show_sources(implementations),
            ),
        },
    ]
    label = f"brute-force[LLM-written by {chat.model}]"
    problem = ""
    for attempt in range(MAX_WRITES):
        answer = chat.complete(messages, temperature=0.0, sample_index=attempt).text
        source = extract_code(answer, function)
        if source is None:
            problem = f"the answer has no Python code defining {function}()"
        else:
            try:
                candidate = load.load_source(source, function=function, label=label)
                load.common_signature([*implementations, candidate])
            except LoadError as error:  # a syntax error, no such function, another signature
                problem = " ".join(str(error).split())
            else:
                return replace(candidate, origin=f"{BRUTE_FORCE_ORIGIN}:{chat.model}")
        messages = [
            *messages,
            {"role": "assistant", "content": answer},
            {
                "role": "user",
                "content": f"That cannot be used: {problem}. Answer again with one ```python code block defining "
                f"`{function}{signature}`.",
            },
        ]
    raise LLMError(f"the model wrote no usable brute-force reference in {MAX_WRITES} tries: {problem}")


# -- the engine ---------------------------------------------------------------------------------


@dataclass
class _Stop:
    reason: StopReason
    message: str


class RandSearchEngine(Engine):
    """Inputs from a random generator the model writes, run in the sandbox batch after batch.

    Needs a model: ``context.model`` (its chat model and the task description, ``spec``). When a brute-force reference is among the
    implementations (its origin says so), the model is asked for small inputs.
    """

    name = "randsearch"
    background = True

    def __init__(self, context: EngineContext) -> None:
        super().__init__(context)
        if context.model is None:
            raise EngineCannotProceed("unsupported", "randsearch needs a language model: pass --model")
        self.chat: ChatModel = context.model.chat
        self.spec: str | None = context.model.spec
        self.small_inputs = any(impl.origin.startswith(BRUTE_FORCE_ORIGIN) for impl in context.implementations)
        self.rng = context.rng(self.name)
        self._ready: deque[Input] = deque()
        self._seen: set[str] = set()
        self._lock = threading.Condition()
        self._closing = threading.Event()
        self._stop: _Stop | None = None
        self._thread: threading.Thread | None = None
        self._precondition: Callable[[Input], bool] | None = None
        #: what the engine did, for its stop message
        self.writes = 0
        self.runs = 0
        self.generated = 0
        self.rejected = 0
        #: the generator the model wrote last (None before its first answer)
        self.source: str | None = None
        #: the verdict of the last generator run that went wrong
        self.last_error: str | None = None

    # -- Engine interface ----------------------------------------------------------------------

    def propose(self, n: int) -> list[Input]:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="divergent-randsearch", daemon=True)
            self._thread.start()
        with self._lock:
            batch = [self._ready.popleft() for _ in range(min(n, len(self._ready)))]
            stop = self._stop
            self._lock.notify_all()
        if not batch and stop is not None:
            raise EngineCannotProceed(stop.reason, stop.message)
        return batch

    def failure_note(self) -> str | None:
        """Why this engine failed, once it has (None otherwise), without waiting: the report says
        it even when another engine ended the run before the portfolio saw this one stop."""
        with self._lock:
            stop = self._stop
        return f"{stop.reason}: {stop.message}" if stop is not None and stop.reason == "failed" else None

    def close(self) -> None:
        self._closing.set()
        with self._lock:
            self._lock.notify_all()
        if self._thread is not None:
            # A sandboxed run in flight ends by itself within its seconds; do not hold the caller.
            self._thread.join(timeout=0.5)

    # -- the worker thread --------------------------------------------------------------------

    def _work(self) -> None:
        started = time.monotonic()
        seconds = self.context.seconds if self.context.seconds is not None else _DEFAULT_SECONDS
        deadline = started + seconds
        try:
            self._search(deadline)
        except _GeneratorFailed as error:
            self._finish("failed", str(error))
        except LLMError as error:
            self._finish("failed", f"the model could not write a generator: {' '.join(str(error).split())}")
        except Exception as error:  # noqa: BLE001 - a bug here must stop this engine, not the run
            self._finish("failed", f"{type(error).__name__}: {error}")
        else:
            self._finish("exhausted", self._summary("time is up" if time.monotonic() >= deadline else "stopped"))

    def _first_messages(self) -> list[Message]:
        """The first request for a generator (a subclass for another kind of input asks otherwise)."""
        return generator_messages(
            self.context.implementations,
            self.context.signature,
            spec=self.spec,
            small_inputs=self.small_inputs,
            timeout=self.context.limits.timeout if self.context.limits else 2.0,
        )

    def _search(self, deadline: float) -> None:
        messages = self._first_messages()
        source = self._write(messages)
        stale = 0
        while not self._closing.is_set() and time.monotonic() < deadline:
            if not self._wait_for_room(deadline):
                return
            result = self._run(source, deadline)
            fresh = self._enqueue(result)
            if result.error is not None and not result.inputs and self.runs == 1:
                if self.writes >= MAX_WRITES:
                    raise _GeneratorFailed(result.error, self.writes)
                # Its first run failed outright: tell the model what happened and let it fix it.
                source = self._write(self._repair(messages, result))
                self.runs = 0
                continue
            if result.error is not None:
                self.last_error = result.error
            stale = 0 if fresh else stale + 1
            if stale >= MAX_STALE_RUNS:
                why = f"{MAX_STALE_RUNS} generator runs in a row brought no new input meeting the preconditions"
                if self.last_error:
                    why += f"; last run: {self.last_error}"
                self._finish("exhausted", self._summary(why))
                return

    def _write(self, messages: list[Message]) -> str:
        """Ask the model (again) for the generator; the code of its answer."""
        while True:
            self.writes += 1
            completion = self.chat.complete(messages, temperature=0.0, sample_index=self.writes - 1)
            messages.append({"role": "assistant", "content": completion.text})
            source = extract_code(completion.text, GENERATOR_FUNCTION)
            if source is not None:
                self.source = source
                return source
            if self.writes >= MAX_WRITES:
                raise LLMError(f"no Python code defining {GENERATOR_FUNCTION}(rng) in {self.writes} answers")
            messages.append(
                {"role": "user", "content": render_prompt(
                    "randsearch_no_code", function_name=f"{GENERATOR_FUNCTION}(rng)")}
            )

    #: the template that tells the model its generator failed
    repair_template = "randsearch_repair"

    def _repair(self, messages: list[Message], result: GeneratedInputs) -> list[Message]:
        produced = f"It produced {result.summary()}." if result.yielded else "It produced no input."
        messages.append(
            {"role": "user", "content": render_prompt(
                self.repair_template, function_name=GENERATOR_FUNCTION, error=result.error, produced=produced)}
        )
        return messages

    def _run(self, source: str, deadline: float) -> GeneratedInputs:
        self.runs += 1
        seed = self.rng.randrange(2**63)
        context = self.context
        return run_generator(
            driver_source(source, seed),
            function=_DRIVER_FUNCTION,
            signature=self._generator_signature(),
            max_inputs=BATCH_INPUTS,
            seconds=max(0.5, min(self._run_seconds(), deadline - time.monotonic())),
            limits=context.limits,
            isolation=context.isolation,
            seed=seed,
            how_generated=self.name,
        )

    def _generator_signature(self) -> Signature | None:
        """What the generator's items must fit (None: texts, for whole programs)."""
        return self.context.signature

    def _run_seconds(self) -> float:
        timeout = self.context.limits.timeout if self.context.limits else 2.0
        low, high = _RUN_SECONDS
        return max(low, min(high, 4 * timeout))

    def _enqueue(self, result: GeneratedInputs) -> int:
        """Queue the inputs not seen before that meet the preconditions; how many were new."""
        if self._precondition is None:
            self._precondition = _preconditions(self.context)
        fresh = []
        for item in result.inputs:
            if item.key in self._seen:
                continue
            self._seen.add(item.key)
            if not self._precondition(item):
                self.rejected += 1
                continue
            fresh.append(item)
        self.generated += len(fresh)
        with self._lock:
            self._ready.extend(fresh)
        return len(fresh)

    def _wait_for_room(self, deadline: float) -> bool:
        """Wait while the queue is full; False when the engine is closing or time is up."""
        with self._lock:
            while len(self._ready) >= QUEUE_LIMIT:
                if self._closing.is_set() or time.monotonic() >= deadline:
                    return False
                self._lock.wait(timeout=0.1)
        return not self._closing.is_set()

    def _summary(self, why: str) -> str:
        text = f"{why} ({self.generated} inputs from {self.runs} generator runs, {self.writes} model calls"
        if self.rejected:
            text += f", {self.rejected} not meeting the preconditions"
        return text + ")"

    def _finish(self, reason: StopReason, message: str) -> None:
        with self._lock:
            if self._stop is None:
                self._stop = _Stop(reason, message)


class _GeneratorFailed(Exception):
    """The generator the model wrote keeps failing in the sandbox."""

    def __init__(self, verdict: str, writes: int) -> None:
        super().__init__(f"the generator the model wrote fails in the sandbox ({writes} tries): {verdict}")


def _preconditions(context: CallContext) -> Callable[[Input], bool]:
    """The annotations (typeguard) and the user's requirement: what the search loop would check."""
    from divergent.preconditions import conforms

    signature, require = context.signature, context.require

    def check(item: Input) -> bool:
        if not conforms(item, signature):
            return False
        if require is None:
            return True
        with contextlib.suppress(Exception):
            return bool(require(item))
        return False

    return check
