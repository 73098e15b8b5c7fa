"""The generator runner: an input generator a language model wrote, run inside the sandbox.

Started by :func:`divergent.sandbox.generators.run_generator` as ``generator LIMITS``; it speaks the
protocol of :mod:`.kit`. The generator is untrusted code, so the runner applies the sandbox's
resource limits (plus a CPU-time limit) before it compiles anything, discards what the code prints,
and sends only JSON built by :func:`divergent.values.encode`: the parent rebuilds builtin values
with :func:`~divergent.values.decode_builtin` and never unpickles anything.

Command (the only one; the parent then closes the pipe)::

    ("generate", {"source": "...", "function": "create_fn_inputs", "max_inputs": 100,
                  "seconds": 10.0, "seed": 0, "text": false})

``text``: the items are whole inputs' texts (strings up to 4 MB are sent whole).

Answers, one frame per event::

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

Time: one alarm covers the module's top-level code and the whole iteration (it keeps firing after
the first time, so a bare ``except:`` cannot swallow it). The parent also kills the runner a moment
after its time, whatever it is doing. A process the generator forks cannot send frames
(:class:`~.kit.Channel` ends it when it tries).
"""

from __future__ import annotations

import os
import random
import sys
import types
from typing import Any

from divergent.sandbox.child.kit import (
    Alarm,
    Channel,
    Discard,
    TimeUp,
    describe_exception,
    limit_cpu_seconds,
    start_child,
)
from divergent.values import EncodeLimits, encode

#: one item's encoded arguments stay small: an LLM's probe is meant to be read
_ENCODE_LIMITS = EncodeLimits(max_nodes=50_000, max_string=100_000, max_depth=48)
#: text mode (``"text": true``, whole programs): an item is an input's whole text, which may be long
_TEXT_LIMITS = EncodeLimits(max_nodes=50_000, max_string=4_000_000, max_depth=48)
_CALL_KEYS = frozenset({"args", "kwargs"})


def _send_item(channel: Channel, index: int, item: Any, limits: EncodeLimits = _ENCODE_LIMITS) -> bool:
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
            channel.send({"event": "wrong_shape", "index": index,
                          "text": f'"args" is a {type(args).__name__}, expected a list or tuple'})
            return False
        if type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
            channel.send({"event": "wrong_shape", "index": index, "text": '"kwargs" is not a dict with string keys'})
            return False
        channel.send({"event": "call", "index": index, "args": encode(list(args), _ENCODE_LIMITS),
                      "kwargs": encode(dict(kwargs), _ENCODE_LIMITS)})
        return True
    if kind in (list, tuple):
        channel.send({"event": "bare", "index": index, "items": encode(list(item), _ENCODE_LIMITS),
                      "container": kind.__name__})
        return True
    channel.send({"event": "value", "index": index, "value": encode(item, limits), "type": kind.__name__})
    return True


def run(request: dict, channel: Channel, alarm: Alarm) -> None:
    source, function_name = request["source"], request["function"]
    max_inputs = int(request["max_inputs"])
    try:
        code = compile(source, "<generator>", "exec")
    except SyntaxError as error:
        channel.send({"event": "error", "kind": "syntax", "text": f"line {error.lineno}: {error.msg}"})
        return
    except (ValueError, MemoryError, RecursionError) as error:
        channel.send({"event": "error", "kind": "syntax", "text": describe_exception(error)})
        return
    random.seed(request.get("seed", 0))
    module = types.ModuleType("divergent_generator")
    module.__file__ = "<generator>"
    sys.modules["divergent_generator"] = module
    # What the generator prints must not reach anyone.
    sys.stdout = sys.stderr = Discard()
    alarm.arm(max(0.001, float(request["seconds"])))
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
            channel.send({"event": "error", "kind": "missing", "text": f"no function {function_name}{also}"})
            return
        produced = function()
        if type(produced) is dict:
            produced = [produced]  # one call, returned instead of yielded
        try:
            iterator = iter(produced)
        except TypeError:
            channel.send({"event": "error", "kind": "not_iterable",
                          "text": f"{function_name}() returned {type(produced).__name__}, not a generator or a list"})
            return
        for item in iterator:
            if not _send_item(channel, count, item, _TEXT_LIMITS if request.get("text") else _ENCODE_LIMITS):
                return
            count += 1
            if count >= max_inputs:
                break
    except TimeUp:
        alarm.disarm()
        channel.send({"event": "error", "kind": "timeout", "text": f"took longer than {request['seconds']:g} s"})
        return
    except SystemExit as error:
        alarm.disarm()
        channel.send({"event": "error", "kind": "exit", "text": f"called exit({error.code!r})"})
        return
    except BaseException as error:  # noqa: BLE001 - whatever the generator raises is the verdict
        alarm.disarm()
        try:
            text = describe_exception(error)
        except TimeUp:
            text = type(error).__name__
        channel.send({"event": "error", "kind": "raised", "text": text})
        return
    finally:
        alarm.disarm()
    channel.send({"event": "done", "count": count, "limit": count >= max_inputs})


def main() -> None:
    channel, _limits, _ = start_child()
    alarm = Alarm()
    message = channel.receive()
    if message is None:
        os._exit(0)
    command, request = message
    if command != "generate":
        channel.send({"event": "error", "kind": "protocol", "text": f"unknown command {command!r}"})
        os._exit(0)
    limit_cpu_seconds(int(float(request["seconds"])) + 2)
    try:
        run(request, channel, alarm)
    except TimeUp:  # fired between the generator's end and disarming
        channel.send({"event": "error", "kind": "timeout", "text": f"took longer than {request['seconds']:g} s"})
    # Leave at once: the generator may have left threads or atexit hooks behind.
    os._exit(0)


if __name__ == "__main__":
    main()
