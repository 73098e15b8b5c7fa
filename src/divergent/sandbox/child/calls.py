"""The call child: the one process that imports an implementation and runs its calls.

It is forked by the worker (:mod:`.worker`) inside the sandbox and runs untrusted code, so it has
nothing the parent reads: its only descriptors are a private pipe pair to the worker (and fd 2).
The worker checks every message it writes (:mod:`.wire`) before relaying it to divergent, and
notices by itself when it dies or hangs. Like every child module it imports only the standard
library, :mod:`divergent.values` and the kit, and binds what it needs before untrusted code runs,
so a program that patches ``json``, ``os`` or the builtins breaks at worst its own results.

Commands (pickles from the worker, which forwards the parent's): ``("load", implementation)``
answers ``{"ok": bool, ...}``; ``("run", {...})`` answers with one or more ``{"results": [...],
"done": bool}`` frames, flushed every few milliseconds so the parent sees progress;
``("load_many", {"implementations": [...]})`` and ``("run_cells", {...})`` do the same for several
implementations in one process (the implementation matrix); ``("sync", {})``, which the worker sends
after the frame that ends a batch, answers ``{"synced": true}`` (nothing may come between the two).
Before each call the child writes the
call's index into the page of memory it shares with the worker and the parent
(:data:`.kit.PROGRESS_RECORD`), so that when a call kills or hangs it they know which input did it.
"""

from __future__ import annotations

import json
import mmap
import pickle
import random
import re
import sys
import time
import types
from typing import Any

from divergent.sandbox.child.containment import safe_import_path, scratch_roots
from divergent.sandbox.child.kit import (
    PROGRESS_RECORD,
    Alarm,
    CappedWriter,
    Channel,
    TimeUp,
    describe_exception,
    exception_fields,
    import_implementation,
)
from divergent.sandbox.child.wire import ARGUMENTS_UNCHANGED
from divergent.values import EncodeLimits, encode, register_home_module

#: modules whose import cannot reach the global random generators (random's, NumPy's)
_NO_GLOBAL_RANDOM = frozenset({
    "typing", "math", "cmath", "collections", "itertools", "functools", "operator", "re", "string",
    "heapq", "bisect", "fractions", "decimal", "numbers", "dataclasses", "enum", "abc", "copy",
    "array", "unicodedata", "textwrap", "hashlib", "datetime", "calendar", "struct", "__future__",
})  # fmt: skip
#: words in a program's text that may lead to the global random generators some other way
_MAY_REACH_RANDOM = ("random", "numpy", "import_module", "__import__", "eval", "exec", "sys", "__builtins__",
                     "__subclasses__", "__globals__", "builtins", "getattr")  # fmt: skip
_IMPORTS = re.compile(r"^\s*(?:from\s+(\S+)\s+import|import\s+([^#;\n]+))", re.MULTILINE)


def may_use_global_random(source: str) -> bool:
    """Whether a program could draw from the global random generators (then every call of it
    starts from the same random state). False only when its text shows no way to reach them:
    no such word and imports from a known list only. A program that hides its way there
    (a determined one can) only loses its own determinism."""
    if any(word in source for word in _MAY_REACH_RANDOM):
        return True
    for match in _IMPORTS.finditer(source):
        for name in (match.group(1) or match.group(2)).replace("(", " ").replace(")", " ").split(","):
            words = name.split()
            if not words or words[0].split(".")[0] not in _NO_GLOBAL_RANDOM:
                return True
    return False


class CallServer:
    """Serves the worker's commands on ``channel`` until the worker closes the pipe."""

    def __init__(self, channel: Channel, alarm: Alarm, limits: dict, progress: mmap.mmap) -> None:
        self._receive = channel.receive
        self.send = channel.send
        # Bound now: a program that patches this class afterwards does not change how calls run.
        self._call = self._call
        self._commands = {"load": self.load, "run": self.run, "load_many": self.load_many,
                          "run_cells": self.run_cells}
        self._alarm = alarm
        self._arm = alarm.arm
        self._disarm = alarm.disarm
        self._repr = repr
        self._dumps = json.dumps
        self._loads_pickle = pickle.loads
        self._dumps_pickle = pickle.dumps
        self._pickle_protocol = pickle.HIGHEST_PROTOCOL
        self._monotonic = time.perf_counter
        self.function = None
        self.functions: list = []
        self._timeouts: list[int] = []
        self.limits = EncodeLimits()
        self.timeout = float(limits["timeout"])
        self.load_timeout = float(limits["load_timeout"])
        self.stdout_limit = int(limits["stdout_bytes"])
        self.result_bytes = int(limits["result_bytes"])
        self.recursion_limit = int(limits["recursion_limit"])
        #: where a program may write: never a directory to import from
        self._scratch = scratch_roots(limits)
        self._progress = progress
        self._capture = CappedWriter(self.stdout_limit)
        random.seed(0)
        self._random_state = random.getstate()
        self._reset_random = True
        self._real_stdout = sys.stdout
        self._real_stderr = sys.stderr

    # -- commands -------------------------------------------------------------------------------

    def load(self, payload: dict) -> dict:
        # Again for every load: a program loaded before may have changed it.
        sys.setrecursionlimit(self.recursion_limit)
        for entry in reversed(safe_import_path(payload["sys_path"], self._scratch)):
            if entry not in sys.path:
                sys.path.insert(0, entry)
        name = payload["module_name"]
        capture = CappedWriter(self.stdout_limit)
        sys.stdout = capture
        self._arm(self.load_timeout)
        register_home_module(name)
        try:
            module = import_implementation(payload, name)
            function = getattr(module, payload["entry_point"], None)
        except TimeUp:
            return {"ok": False, "kind": "timeout", "error": f"loading took longer than {self.load_timeout} s"}
        except SyntaxError as error:
            return {"ok": False, "kind": "syntax", "error": f"line {error.lineno}: {error.msg}"}
        except BaseException as error:  # noqa: BLE001 - whatever the module raises is the verdict
            return {"ok": False, "kind": "import", "error": describe_exception(error, where=True)}
        finally:
            self._disarm()
            sys.stdout = self._real_stdout
        if function is None:
            return {"ok": False, "kind": "missing", "error": f"the module defines no {payload['entry_point']!r}"}
        if not callable(function):
            return {"ok": False, "kind": "missing", "error": f"{payload['entry_point']!r} is not callable"}
        self.function = function
        self._reset_random = bool(payload["path"]) or may_use_global_random(
            payload["source"] + "\n" + (payload["setup_code"] or "")
        )
        self._capture = CappedWriter(self.stdout_limit)
        return {"ok": True, "stdout": capture.text(), "constants": _runtime_constants(module, self.limits)}

    def load_many(self, payload: dict) -> dict:
        """Load several implementations into this one worker, each as its own module.

        For runs over many small programs (the samples of an incoherence run), where starting a
        process per program would cost more than running it."""
        results = []
        self.functions = []
        self._resets = []
        for number, implementation in enumerate(payload["implementations"]):
            answer = self.load({**payload, **implementation, "module_name": f"{implementation['module_name']}_{number}"})
            self.functions.append(self.function if answer.get("ok") else None)
            self._resets.append(self._reset_random)
            answer.pop("constants", None)
            results.append(answer)
            self.function = None
        self._timeouts = [0] * len(self.functions)
        return {"ok": True, "results": results}

    def run_cells(self, payload: dict) -> None:
        """Run (input, implementation) cells in order; an implementation that has timed out
        ``max_timeouts`` times is not called again (its later cells are timeouts too).

        An outcome equal to an earlier one on the same input is sent as ``{"same": k}``: the k-th
        different outcome on that input in this message (most samples agree, and the parent, which
        reads the results of every worker, would otherwise decode each copy)."""
        blobs = payload["inputs"]
        encode_args = payload["encode_args"]
        max_timeouts = payload["max_timeouts"]
        #: optional per-input time limits (a measurement may give each input its own)
        timeouts = payload.get("timeouts")
        #: per input position: each different outcome's text → its number
        different: dict[int, dict[str, int]] = {}
        pending: list[dict] = []
        last_flush = self._monotonic()
        for position, (input_position, implementation) in enumerate(payload["cells"]):
            self._progress[:] = PROGRESS_RECORD.pack(position)
            function = self.functions[implementation]
            started = self._monotonic()
            if function is None:
                outcome: dict = {"k": "crash", "d": "the implementation did not load", "s": 0.0}
            elif self._timeouts[implementation] >= max_timeouts:
                outcome = {"k": "timeout", "d": f"not run: timed out {max_timeouts} times before", "s": 0.0}
            else:
                self.function = function
                self._reset_random = self._resets[implementation]
                outcome = self._call(blobs[input_position], encode_args, timeouts[input_position] if timeouts else None)
                if outcome["k"] == "timeout":
                    self._timeouts[implementation] += 1
            seconds = outcome.pop("s")
            # The wire form holds only JSON types, whose repr tells equal from unequal (it is
            # several times cheaper than encoding the JSON).
            text = self._repr(outcome)
            seen = different.setdefault(input_position, {})
            number = seen.get(text)
            if number is None:
                seen[text] = len(seen)
                outcome["s"] = seconds
                pending.append(outcome)
            else:
                pending.append({"same": number})
            now = self._monotonic()
            if now - started > 0.005 or now - last_flush > 0.02:
                self.send({"results": pending, "done": False})
                pending = []
                last_flush = now
        self._disarm()
        self.send({"results": pending, "done": True})

    def run(self, payload: dict) -> None:
        blobs = payload["inputs"]
        indices = payload["indices"]
        compare_mutation = payload["encode_args"]
        careful = payload["careful"]
        # The batch's own per-call limit, when the caller sent one (a search starts small and
        # adapts it); else the worker's limit.
        timeout = payload.get("timeout")
        pending: list[dict] = []
        last_flush = received = self._monotonic()
        # Past the caller's deadline, stop between calls: the caller's budget is spent.
        deadline = payload.get("deadline")
        for index, blob in zip(indices, blobs, strict=True):
            if deadline is not None and self._monotonic() - received > deadline:
                self._disarm()
                self.send({"results": pending, "done": True, "stopped": True})
                return
            self._progress[:] = PROGRESS_RECORD.pack(index)
            started = self._monotonic()
            pending.append(self._call(blob, compare_mutation, timeout))
            now = self._monotonic()
            if careful or now - started > 0.005 or now - last_flush > 0.02:
                self.send({"results": pending, "done": False})
                pending = []
                last_flush = now
        self._disarm()
        self.send({"results": pending, "done": True})

    def _call(self, blob: bytes, encode_args: bool, timeout: float | None = None) -> dict:
        timeout = self.timeout if timeout is None else timeout
        args, kwargs = self._loads_pickle(blob)
        if self._reset_random:
            # Every call starts from the same random state, whatever earlier calls drew.
            random.setstate(self._random_state)
            numpy = sys.modules.get("numpy")
            if numpy is not None:
                try:
                    numpy.random.seed(0)
                except Exception:  # noqa: BLE001 - a patched numpy is the program's business
                    pass
        capture = self._capture
        capture.reset()
        function = self.function
        # Immutable arguments cannot be mutated: skip encoding them after the call.
        mutable = encode_args and not _immutable(args, kwargs)
        sys.stdout = capture
        outcome: dict
        started = self._monotonic()
        self._arm(timeout)
        try:
            value = function(*args, **kwargs)
            # Encoding may run program code (generators, __repr__): still under the timer.
            outcome = {"k": "returned", "v": encode(value, self.limits)}
            if mutable:
                outcome["a"] = self._arguments_after(args, kwargs, blob)
        except TimeUp:
            outcome = {"k": "timeout", "d": f"exceeded {timeout:g} s"}
        except BaseException as error:  # noqa: BLE001 - what the program raises is its behaviour
            try:
                outcome = {"k": "raised", "e": exception_fields(error)}
                if mutable:
                    outcome["a"] = self._arguments_after(args, kwargs, blob)
            except TimeUp:
                outcome = {"k": "timeout", "d": f"exceeded {timeout:g} s"}
        finally:
            self._alarm.running = False  # paused; the next call's arming replaces the timer (see Alarm)
        outcome["s"] = self._monotonic() - started
        sys.stdout = self._real_stdout
        if capture.total:
            outcome["o"] = capture.text()
        value = outcome.get("v")
        if type(value) is list and len(self._dumps(value)) > self.result_bytes:
            outcome["v"] = ["truncated", "size"]
        return outcome

    def _arguments_after(self, args: tuple, kwargs: dict, blob: bytes) -> Any:
        """The arguments after a call: :data:`.wire.ARGUMENTS_UNCHANGED` when they pickle exactly as
        they came (divergent then encodes them itself, once for every implementation), else their
        encoding. May run program code (a ``__reduce__``): call it under the timer."""
        try:
            if self._dumps_pickle((args, kwargs), protocol=self._pickle_protocol) == blob:
                return ARGUMENTS_UNCHANGED
        except Exception:  # noqa: BLE001 - the call may have put anything in its arguments
            pass
        return encode([list(args), kwargs], self.limits)

    def serve(self) -> None:
        while True:
            message = self._receive()
            if message is None:
                return
            command, payload = message
            if command == "sync":
                self.send({"synced": True})
                continue
            handler = self._commands.get(command)
            if handler is None:
                self.send({"ok": False, "error": f"unknown command {command!r}"})
                continue
            answer = handler(payload)
            if command in ("load", "load_many"):
                self.send(answer)


_IMMUTABLE_ATOMS = (int, float, str, bytes, bool, type(None), complex, frozenset)


def _immutable(args: tuple, kwargs: dict) -> bool:
    """Whether no call could change these arguments (atoms and tuples of atoms only)."""
    for value in (*args, *kwargs.values()):
        kind = type(value)
        if kind in _IMMUTABLE_ATOMS:
            continue
        if kind is tuple and all(type(item) in _IMMUTABLE_ATOMS for item in value):
            continue
        return False
    return True


_MAX_RUNTIME_CONSTANTS = 500


def _runtime_constants(module: types.ModuleType, limits: EncodeLimits) -> list:
    """Values the module computed when it loaded (``KNOWN = {crc32(b"alpha"), ...}``): numbers,
    strings and bytes in its globals and in their containers. Rare values an implementation
    compares against are often made this way, out of reach of reading the source."""
    found: list = []
    atoms = (int, float, str, bytes)
    for name, value in list(vars(module).items()):
        if name.startswith("__") or len(found) >= _MAX_RUNTIME_CONSTANTS:
            continue
        if isinstance(value, dict):
            items = [*value.keys(), *value.values()]
        elif isinstance(value, list | tuple | set | frozenset):
            items = list(value)
        else:
            items = [value]
        for item in items[:_MAX_RUNTIME_CONSTANTS]:
            if type(item) in atoms and (not isinstance(item, str | bytes) or len(item) <= 100):
                found.append(encode(item, limits))
    return found[:_MAX_RUNTIME_CONSTANTS]


def serve(channel: Channel, limits: dict, progress: mmap.mmap) -> None:
    """Run as the call child (just forked by the worker) until the worker closes the pipe."""
    sys.setrecursionlimit(int(limits["recursion_limit"]))
    alarm = Alarm()
    CallServer(channel, alarm, limits, progress).serve()
