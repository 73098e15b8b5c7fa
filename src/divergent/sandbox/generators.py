"""Inputs from generator code a language model wrote, run in the sandbox.

ProbeGen (and RandSearch) ask a model for a function such as::

    def create_fn_inputs():
        yield {"args": [[3, 1, 2]], "kwargs": {}}
        for n in range(5):
            yield {"args": [list(range(n))], "kwargs": {}}

That code is untrusted. :func:`run_generator` starts :mod:`divergent.sandbox.child.generator` in
the sandbox (at the run's isolation level and limits), sends it the source, and reads back one frame
per yielded item (:mod:`divergent.sandbox.frames`), the arguments in the safe encoding of
:mod:`divergent.values`; they are rebuilt here with :func:`~divergent.values.decode_builtin`
(builtin data only, never an unpickled object).

What the model may yield, per item (the first shape that fits the signature wins):

- ``{"args": [...], "kwargs": {...}}`` (either key may be missing);
- a bare tuple or list of the arguments, ``("abc", 2)``; for a function of one parameter, a list
  that does not fit as the argument list is taken as the one argument (``[3, 1, 2]`` for ``f(xs)``);
- for a function of one parameter, any other value as that argument.

Keyword arguments that name positional parameters are moved to their positions when they follow
the positional ones (``args=[1], kwargs={"b": 2}`` becomes ``f(1, 2)``), so equal calls look alike.

For whole programs (``signature=None``, text mode) every item is the text of one input, a string
(bytes are decoded as UTF-8); anything else is dropped with its reason.

Everything that can go wrong is a verdict in :attr:`GeneratedInputs.error`, never an exception:
a syntax error, a missing function, an exception, a loop past the time limit, an exit, a crash
(memory, signals), a wrong shape. Inputs yielded before the problem are kept. The runner stops
after ``max_inputs`` items, so an endless generator is fine.
"""

from __future__ import annotations

import contextlib
import selectors
import time
from dataclasses import dataclass
from typing import Any

from divergent.errors import DivergentError, InvalidArgument
from divergent.preconditions import bind_arguments, nonconformity
from divergent.programs import ParameterKind, Signature
from divergent.records import AnyInput, Input, TextInput
from divergent.sandbox.frames import ChildConnection, ChildGone, ProtocolViolation, start_child
from divergent.sandbox.isolation import choose_level
from divergent.sandbox.limits import Limits
from divergent.values import NotBuiltin, decode_builtin

__all__ = ["DEFAULT_FUNCTION", "GeneratedInputs", "run_generator"]

DEFAULT_FUNCTION = "create_fn_inputs"
_RUNNER_MODULE = "divergent.sandbox.child.generator"
#: time for the interpreter (and bwrap) to start, on top of the generator's own seconds
_START_GRACE = 3.0
_MAX_SOURCE_CHARS = 200_000
_MAX_FRAME_BYTES = 16 * 1024 * 1024
#: how many reasons for dropped items are kept (the count is always exact)
_KEPT_REASONS = 5


@dataclass(frozen=True)
class GeneratedInputs:
    """What one run of a generator produced, and how it ended."""

    #: distinct inputs, in the order yielded, each fitting the signature's arity (text mode: texts)
    inputs: tuple[AnyInput, ...]
    #: None when the generator ran to its end (or to ``max_inputs``); else a one-line verdict:
    #: "syntax error line 3: ...", "no function create_fn_inputs", "raised ValueError: ...",
    #: "timeout: ...", "crash: ...", "yielded a value of the wrong shape at item 4: ..."
    error: str | None = None
    #: the verdict's kind: "syntax", "missing", "raised", "exit", "timeout", "crash", "wrong_shape",
    #: "not_iterable", "sandbox" (the runner could not start) or None
    error_kind: str | None = None
    #: items the generator yielded (before any check)
    yielded: int = 0
    #: items dropped: not rebuildable outside the sandbox, or not a call the signature accepts
    dropped: int = 0
    #: the first few reasons for dropped items
    drop_reasons: tuple[str, ...] = ()
    #: items equal to an earlier one
    duplicates: int = 0
    #: the generator had more to give when ``max_inputs`` was reached
    reached_limit: bool = False
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None

    def summary(self) -> str:
        """One line: "7 inputs (2 dropped: ...)", or the verdict with what was kept."""
        text = f"{len(self.inputs)} input{'s' if len(self.inputs) != 1 else ''}"
        if self.dropped:
            text += f" ({self.dropped} dropped: {self.drop_reasons[0]})" if self.drop_reasons else ""
        if self.reached_limit:
            text += ", stopped at the limit"
        return text if self.error is None else f"{self.error} ({text} kept)"

    def as_dict(self) -> dict[str, Any]:
        return {
            "inputs": len(self.inputs),
            "error": self.error,
            "error_kind": self.error_kind,
            "yielded": self.yielded,
            "dropped": self.dropped,
            "drop_reasons": list(self.drop_reasons),
            "duplicates": self.duplicates,
            "reached_limit": self.reached_limit,
            "seconds": round(self.seconds, 3),
        }


def run_generator(
    source: str,
    *,
    function: str = DEFAULT_FUNCTION,
    signature: Signature | None,
    max_inputs: int = 100,
    seconds: float = 10.0,
    limits: Limits | None = None,
    isolation: str | None = None,
    seed: int = 0,
    how_generated: str = "llm",
) -> GeneratedInputs:
    """Run ``function()`` from ``source`` in the sandbox and collect up to ``max_inputs`` inputs.

    ``limits`` gives the memory, file-size and recursion limits (the call timeout is not used:
    ``seconds`` bounds the whole run, the module's top-level code included). ``signature=None``:
    text mode, every item is the text of an input (whole programs). Raises only for bad arguments
    (:class:`InvalidArgument`); every misbehaviour of the code is a verdict.
    """
    if max_inputs < 1:
        raise InvalidArgument(f"max_inputs={max_inputs!r} must be >= 1")
    if seconds <= 0:
        raise InvalidArgument(f"seconds={seconds!r} must be > 0")
    if not function.isidentifier():
        raise InvalidArgument(f"function={function!r} is not a Python identifier")
    collector = _Collector(signature, max_inputs, how_generated)
    started = time.monotonic()
    if len(source) > _MAX_SOURCE_CHARS:
        collector.fail("syntax", f"the code is too long ({len(source):,} characters)")
        return collector.result(time.monotonic() - started)
    limits = limits or Limits()
    request = {"source": source, "function": function, "max_inputs": max_inputs, "seconds": seconds, "seed": seed,
               "text": signature is None}
    child: ChildConnection | None = None
    try:
        try:
            child = ChildConnection(
                start_child(_RUNNER_MODULE, limits=limits, level=choose_level(isolation), capture_stderr=True),
                max_frame_bytes=_MAX_FRAME_BYTES,
            )
        except DivergentError as error:
            collector.fail("sandbox", f"cannot start the generator sandbox: {error}")
            return collector.result(time.monotonic() - started)
        _talk(child, request, collector, deadline=started + seconds + _START_GRACE)
    finally:
        if child is not None:
            child.kill()  # also whatever the generator forked
            child.process.close_stderr()
    return collector.result(time.monotonic() - started)


def _talk(child: ChildConnection, request: dict, collector: _Collector, *, deadline: float) -> None:
    try:
        child.send("generate", request)
    except ChildGone:
        pass  # the runner died at once: its exit status tells why
    child.finish_sending()
    with selectors.DefaultSelector() as selector:
        selector.register(child.fileno(), selectors.EVENT_READ)
        while not collector.finished:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                collector.fail("timeout", f"timeout: took longer than {request['seconds']:g} s")
                return
            if not selector.select(remaining):
                continue
            try:
                frames = child.read_frames()
            except ProtocolViolation as error:
                collector.fail("crash", f"crash: the runner broke the protocol ({error})")
                return
            except ChildGone:
                break
            for frame in frames:
                collector.handle(frame)
                if collector.finished:
                    return
    if not collector.finished:
        # End of file without a verdict: the process ended under the generator.
        process = child.process
        with contextlib.suppress(Exception):
            process.popen.wait(timeout=2)
        status = process.exit_description()
        tail = _last_line(process.stderr_tail())
        collector.fail("crash", f"crash: the generator ended the runner ({status}){tail}")


def _last_line(text: str) -> str:
    text = text.strip()
    return f": {text.splitlines()[-1][:200]}" if text else ""


class _Collector:
    """Turns the runner's frames into inputs and a verdict."""

    def __init__(self, signature: Signature | None, max_inputs: int, how_generated: str) -> None:
        self.signature = signature
        self.max_inputs = max_inputs
        self.how_generated = how_generated
        self.inputs: dict[str, AnyInput] = {}
        self.error: str | None = None
        self.error_kind: str | None = None
        self.finished = False
        self.yielded = 0
        self.dropped = 0
        self.drop_reasons: list[str] = []
        self.duplicates = 0
        self.reached_limit = False
        if signature is None:
            self.single_parameter = False
            return
        positional = signature.positional
        others_required = [p for p in signature.required if p not in positional]
        #: a function of one positional parameter takes a lone value as that parameter
        self.single_parameter = len(positional) == 1 and not others_required and not any(
            p.kind is ParameterKind.VAR_POSITIONAL for p in signature.parameters
        )

    def fail(self, kind: str, text: str) -> None:
        if not self.finished:
            self.error_kind, self.error = kind, text
            self.finished = True

    def result(self, seconds: float) -> GeneratedInputs:
        return GeneratedInputs(
            inputs=tuple(self.inputs.values()),
            error=self.error,
            error_kind=self.error_kind,
            yielded=self.yielded,
            dropped=self.dropped,
            drop_reasons=tuple(self.drop_reasons),
            duplicates=self.duplicates,
            reached_limit=self.reached_limit,
            seconds=seconds,
        )

    def handle(self, message: dict) -> None:
        """Take one of the runner's frames (a JSON object)."""
        event = message.get("event")
        index = message.get("index")
        position = index + 1 if isinstance(index, int) else self.yielded + 1
        if event in ("call", "bare", "value"):
            self.yielded += 1
            self._item(event, message, position)
            if self.yielded >= self.max_inputs:
                self.reached_limit = True
                self.finished = True
        elif event == "wrong_shape":
            self.yielded += 1
            self.fail("wrong_shape", f"yielded a value of the wrong shape at item {position}: {message.get('text')}")
        elif event == "error":
            kind = str(message.get("kind", "raised"))
            text = str(message.get("text", ""))[:500]
            prefix = {
                "syntax": "syntax error ",
                "raised": "raised ",
                "timeout": "timeout: ",
                "exit": "exited: ",
            }.get(kind, "")
            self.fail(kind if kind in ("syntax", "missing", "raised", "exit", "timeout", "not_iterable") else "crash",
                      prefix + text)
        elif event == "done":
            self.reached_limit = bool(message.get("limit"))
            self.finished = True

    def _item(self, event: str, message: dict, position: int) -> None:
        if self.signature is None:
            self._text_item(event, message, position)
            return
        try:
            candidates = self._candidates(event, message)
        except (NotBuiltin, TypeError, ValueError, IndexError, KeyError, OverflowError, RecursionError) as error:
            self._drop(f"item {position}: not a builtin value ({str(error)[:80]})")
            return
        if candidates is None:
            got = message.get("type", "value")
            self.fail(
                "wrong_shape",
                f"yielded a value of the wrong shape at item {position}: expected "
                f'{{"args": [...], "kwargs": {{...}}}} or a tuple of arguments, got {got}',
            )
            return
        chosen, problem = None, None
        for args, kwargs in candidates:
            candidate = Input(args=args, kwargs=kwargs, how_generated=self.how_generated)
            if bind_arguments(candidate, self.signature) is None:
                problem = problem or nonconformity(candidate, self.signature)
                continue
            if chosen is None:
                chosen = candidate  # binds; keep looking for one that also fits the annotations
            if nonconformity(candidate, self.signature) is None:
                chosen = candidate
                break
        if chosen is None:
            self._drop(f"item {position}: {problem or 'does not fit the signature'}")
            return
        chosen = _kwargs_to_positions(chosen, self.signature)
        try:
            key = chosen.key
        except Exception:  # noqa: BLE001 - a value with no canonical key cannot be run
            self._drop(f"item {position}: not a comparable value")
            return
        if key in self.inputs:
            self.duplicates += 1
            return
        self.inputs[key] = chosen

    def _candidates(self, event: str, message: dict) -> list[tuple[tuple, dict]] | None:
        """The readings of one item, most likely first; None for a value of the wrong shape."""
        if event == "call":
            args, kwargs = decode_builtin(message["args"]), decode_builtin(message["kwargs"])
            if not isinstance(args, list) or not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
                raise TypeError("arguments are not a list and a dict of names")
            return [(tuple(args), kwargs)]
        if event == "bare":
            items = decode_builtin(message["items"])
            if not isinstance(items, list):
                raise TypeError("arguments are not a list")
            readings = [(tuple(items), {})]
            if self.single_parameter:
                whole = tuple(items) if message.get("container") == "tuple" else items
                readings.append(((whole,), {}))
            return readings
        value = decode_builtin(message["value"])
        if not self.single_parameter:
            return None
        return [((value,), {})]

    def _text_item(self, event: str, message: dict, position: int) -> None:
        """Text mode: the item must be the input's text."""
        try:
            value = decode_builtin(message["value"]) if event == "value" else None
        except (NotBuiltin, TypeError, ValueError, IndexError, KeyError, OverflowError, RecursionError):
            value = None
        if isinstance(value, bytes):
            value = value.decode("utf-8", "surrogateescape")
        if not isinstance(value, str):
            got = message.get("type") or ("a list" if event == "bare" else "a dictionary")
            self._drop(f"item {position}: expected the input's text as a string, got {got}")
            return
        item = TextInput(value, how_generated=self.how_generated)
        if item.key in self.inputs:
            self.duplicates += 1
            return
        self.inputs[item.key] = item

    def _drop(self, reason: str) -> None:
        self.dropped += 1
        if len(self.drop_reasons) < _KEPT_REASONS:
            self.drop_reasons.append(reason)


def _kwargs_to_positions(item: Input, signature: Signature) -> Input:
    """Move keyword arguments that continue the positional ones into positions."""
    if not item.kwargs:
        return item
    args, kwargs = list(item.args), dict(item.kwargs)
    for parameter in signature.positional[len(args):]:
        if parameter.kind is not ParameterKind.POSITIONAL_OR_KEYWORD or parameter.name not in kwargs:
            break
        args.append(kwargs.pop(parameter.name))
    if len(args) == len(item.args):
        return item
    return Input(args=tuple(args), kwargs=kwargs, how_generated=item.how_generated)
