"""The child side of :func:`divergent.sandbox.generators.run_generator`: run an input generator
written by a language model, inside the sandbox, and stream what it yields back as JSON.

Started as ``python_command("divergent.sandbox.child.generator")``. The generator is untrusted
code, so this process applies the sandbox worker's resource limits (plus a CPU-time limit) before it
compiles anything, keeps its protocol on a private descriptor, discards what the code prints, and
sends only JSON built by :func:`divergent.values.encode`: the parent rebuilds builtin values with
:func:`~divergent.values.decode_builtin` and never unpickles anything.

Protocol. Parent → runner: one JSON object on stdin, then end of file::

    {"source": "...", "function": "create_fn_inputs", "max_inputs": 100, "seconds": 10.0,
     "memory_mb": 2048, "file_bytes": ..., "seed": 0, "recursion_limit": 10000}

Runner → parent: JSON lines, one per event, each written whole::

    {"event": "call", "index": i, "args": <encoded list>, "kwargs": <encoded dict>}
                                   an item {"args": [...], "kwargs": {...}} (either key may be absent)
    {"event": "bare", "index": i, "items": <encoded list>, "container": "tuple" | "list"}
                                   an item that is a tuple or list: the arguments themselves
    {"event": "value", "index": i, "value": <encoded>, "type": "int"}
                                   any other item (the parent decides whether it can be the one argument)
    {"event": "wrong_shape", "index": i, "text": "..."}
                                   a dict with "args"/"kwargs" of the wrong types; the runner stops
    {"event": "error", "kind": "syntax" | "missing" | "raised" | "exit" | "timeout" | "not_iterable",
     "text": "..."}
    {"event": "done", "count": n, "limit": bool}    it ran out of items (or reached max_inputs)

Time: one wall-clock alarm covers the module's top-level code and the whole iteration; it keeps
firing after the first time so a bare ``except:`` cannot swallow it. The parent also kills the
runner a moment after its time, whatever it is doing.
"""

from __future__ import annotations

import io
import json
import os
import random
import resource
import signal
import sys
import types
from typing import Any

from divergent.sandbox.child.kit import apply_limits as _apply_limits
from divergent.sandbox.child.kit import exception_fields as _exception_fields
from divergent.values import EncodeLimits, encode

#: one item's encoded arguments stay small: an LLM's probe is meant to be read
_ENCODE_LIMITS = EncodeLimits(max_nodes=50_000, max_string=100_000, max_depth=48)
_CALL_KEYS = frozenset({"args", "kwargs"})


class _GeneratorTimeout(BaseException):
    """Raised by the alarm: the generator's time is up (a BaseException, so ``except Exception``
    in the generator does not swallow it)."""


class _Discard(io.TextIOBase):
    """sys.stdout and sys.stderr while the generator runs: what it prints must not reach the protocol."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


class _Protocol:
    """Whole JSON lines on a private descriptor, bound before untrusted code runs."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._write = os.write
        self._dumps = json.dumps
        self._getpid = os.getpid
        self._exit = os._exit
        self._pid = os.getpid()
        self._mask = signal.pthread_sigmask

    def send(self, **message: Any) -> None:
        if self._getpid() != self._pid:
            # A process the generator forked must not speak for the runner.
            self._exit(0)
        data = (self._dumps(message, separators=(",", ":"), ensure_ascii=True) + "\n").encode("ascii")
        view = memoryview(data)
        # The alarm must not cut a line in half: it waits until the line is out.
        self._mask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            while view:
                written = self._write(self._fd, view)
                view = view[written:]
        finally:
            self._mask(signal.SIG_UNBLOCK, {signal.SIGALRM})


def _on_alarm(signum: int, frame: object) -> None:
    raise _GeneratorTimeout()


def _describe(error: BaseException) -> str:
    name, message, _ = _exception_fields(error)
    return f"{name}: {message}" if message else name


def _send_item(protocol: _Protocol, index: int, item: Any) -> bool:
    """Encode one yielded item and send it; False when its shape ends the run."""
    kind = type(item)
    if kind is dict and item and set(item) <= _CALL_KEYS:
        args = item.get("args", ())
        kwargs = item.get("kwargs", {})
        if kwargs is None:
            kwargs = {}
        if args is None:
            args = ()
        if type(args) not in (list, tuple):
            protocol.send(event="wrong_shape", index=index,
                          text=f'"args" is a {type(args).__name__}, expected a list or tuple')
            return False
        if type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
            protocol.send(event="wrong_shape", index=index,
                          text='"kwargs" is not a dict with string keys')
            return False
        protocol.send(event="call", index=index, args=encode(list(args), _ENCODE_LIMITS),
                      kwargs=encode(dict(kwargs), _ENCODE_LIMITS))
        return True
    if kind in (list, tuple):
        protocol.send(event="bare", index=index, items=encode(list(item), _ENCODE_LIMITS), container=kind.__name__)
        return True
    protocol.send(event="value", index=index, value=encode(item, _ENCODE_LIMITS), type=kind.__name__)
    return True


def run(request: dict, protocol: _Protocol) -> None:
    source, function_name = request["source"], request["function"]
    max_inputs = int(request["max_inputs"])
    try:
        code = compile(source, "<generator>", "exec")
    except SyntaxError as error:
        protocol.send(event="error", kind="syntax", text=f"line {error.lineno}: {error.msg}")
        return
    except (ValueError, MemoryError, RecursionError) as error:
        protocol.send(event="error", kind="syntax", text=_describe(error))
        return
    random.seed(request.get("seed", 0))
    module = types.ModuleType("divergent_generator")
    module.__file__ = "<generator>"
    sys.modules["divergent_generator"] = module
    discard = _Discard()
    sys.stdout = sys.stderr = discard
    signal.setitimer(signal.ITIMER_REAL, max(0.001, float(request["seconds"])), 0.05)
    count = 0
    try:
        exec(code, module.__dict__)
        function = module.__dict__.get(function_name)
        if not callable(function):
            defined = sorted(
                name for name, value in module.__dict__.items()
                if isinstance(value, types.FunctionType) and not name.startswith("_")
            )
            also = f" (it defines: {', '.join(defined[:8])})" if defined else ""
            protocol.send(event="error", kind="missing", text=f"no function {function_name}{also}")
            return
        produced = function()
        if type(produced) is dict:
            produced = [produced]  # one call, returned instead of yielded
        try:
            iterator = iter(produced)
        except TypeError:
            protocol.send(event="error", kind="not_iterable",
                          text=f"{function_name}() returned {type(produced).__name__}, not a generator or a list")
            return
        for item in iterator:
            if not _send_item(protocol, count, item):
                return
            count += 1
            if count >= max_inputs:
                break
    except _GeneratorTimeout:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        protocol.send(event="error", kind="timeout", text=f"took longer than {request['seconds']:g} s")
        return
    except SystemExit as error:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        protocol.send(event="error", kind="exit", text=f"called exit({error.code!r})")
        return
    except BaseException as error:  # noqa: BLE001 - whatever the generator raises is the verdict
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        try:
            text = _describe(error)
        except _GeneratorTimeout:
            text = type(error).__name__
        protocol.send(event="error", kind="raised", text=text)
        return
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
    protocol.send(event="done", count=count, limit=count >= max_inputs)


def main() -> None:
    # Keep the protocol on a private descriptor; the generator's fds 0 and 1 go nowhere.
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    out_fd = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = open(os.devnull)  # noqa: SIM115
    _apply_limits(int(request["memory_mb"]), int(request["file_bytes"]))
    # CPU seconds: a process the generator forks (and so escapes the alarm) still ends.
    cpu = int(float(request["seconds"])) + 2
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    except (ValueError, OSError):
        pass
    sys.setrecursionlimit(int(request.get("recursion_limit", 10_000)))
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    protocol = _Protocol(out_fd)
    try:
        run(request, protocol)
    except _GeneratorTimeout:  # fired between the generator's end and disarming
        protocol.send(event="error", kind="timeout", text=f"took longer than {request['seconds']:g} s")
    # Leave at once: the generator may have left threads or atexit hooks behind.
    os._exit(0)


if __name__ == "__main__":
    main()
