"""The child side of a sandbox worker: load one implementation, then run batches of calls.

This module runs *inside* the sandbox, next to untrusted code. It imports only the standard
library and :mod:`divergent.values`, and binds everything it needs to local names before any
untrusted code runs, so a program that patches ``json``, ``os`` or the builtins cannot break the
protocol (at worst it breaks its own results, which the parent sees as a crash).

Protocol (frames are a 4-byte big-endian length and a payload):

* parent → worker: pickles of ``(command, payload)`` (trusted data: the parent made them);
* worker → parent: UTF-8 JSON only, so the parent never unpickles what untrusted code produced.

Commands: ``("load", {...})`` answers ``{"ok": bool, ...}``; ``("run", {...})`` answers with one or
more ``{"results": [...], "done": bool}`` frames, flushed every few milliseconds so the parent
sees progress. Before each call the worker writes the call's index into a small shared file, so
that when a call kills or hangs the worker the parent knows which input did it.
"""

from __future__ import annotations

import builtins
import gc
import importlib.util
import io
import json
import mmap
import os
import pickle
import random
import re
import resource
import signal
import struct
import sys
import time
import traceback
import types

from divergent.values import EncodeLimits, encode, qualified_name

_HEADER = struct.Struct(">I")
_PROGRESS = struct.Struct(">q")
_MAX_FRAME = 256 * 1024 * 1024


class CallTimeout(BaseException):
    """Raised by the in-worker timer when a call runs past its limit."""


class _Timer:
    #: True while a call (or a load) runs under the timer: only then does its signal interrupt.
    #: A call's timer is not cancelled when the call returns (one system call per call instead
    #: of two); the next call's arming replaces it, and a signal between calls does nothing.
    running = False


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


class CappedWriter(io.TextIOBase):
    """sys.stdout during a call: keeps the first ``limit`` characters, counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.total = 0

    def writable(self) -> bool:
        return True

    def reset(self) -> None:
        self.parts = []
        self.kept = 0
        self.total = 0

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def text(self) -> str:
        kept = "".join(self.parts)
        if self.total > self.kept:
            kept += f"\n<… {self.total - self.kept} more characters>"
        return kept


def import_implementation(spec: dict, name: str) -> types.ModuleType:
    """Import an implementation (its file, or its source as a fresh module) under ``name`` and run
    its setup code. This runs untrusted top-level code: call it inside the sandbox only."""
    if spec["path"]:
        module_spec = importlib.util.spec_from_file_location(name, spec["path"])
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"cannot import {spec['path']}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
    else:
        module = types.ModuleType(name)
        module.__file__ = f"<{name}>"
        sys.modules[name] = module
        exec(compile(spec["source"], f"<{name}>", "exec"), module.__dict__)
    if spec["setup_code"]:
        exec(compile(spec["setup_code"], "<setup>", "exec"), module.__dict__)
    return module


class Worker:
    def __init__(self, in_fd: int, out_fd: int, progress_path: str) -> None:
        self._read = os.read
        self._write = os.write
        self._dumps = json.dumps
        self._repr = repr
        self._loads_pickle = pickle.loads
        self._monotonic = time.perf_counter
        self._setitimer = signal.setitimer
        self._in = in_fd
        self._out = out_fd
        self._buffer = b""
        self.function = None
        self.functions: list = []
        self._timeouts: list[int] = []
        self.limits = EncodeLimits()
        self.timeout = 2.0
        self.stdout_limit = 64 * 1024
        self.result_bytes = 4 * 1024 * 1024
        fd = os.open(progress_path, os.O_RDWR | os.O_CREAT, 0o600)
        os.ftruncate(fd, _PROGRESS.size)
        self._progress = mmap.mmap(fd, _PROGRESS.size)
        os.close(fd)
        self._capture = CappedWriter(self.stdout_limit)
        random.seed(0)
        self._random_state = random.getstate()
        self._reset_random = True
        self._real_stdout = sys.stdout
        self._real_stderr = sys.stderr

    # -- framing --------------------------------------------------------------------------------

    def receive(self) -> tuple[str, dict] | None:
        header = self._read_exactly(_HEADER.size)
        if header is None:
            return None
        (length,) = _HEADER.unpack(header)
        body = self._read_exactly(length)
        if body is None:
            return None
        return self._loads_pickle(body)

    def _read_exactly(self, n: int) -> bytes | None:
        while len(self._buffer) < n:
            chunk = self._read(self._in, max(65536, n - len(self._buffer)))
            if not chunk:
                return None
            self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def send(self, message: object) -> None:
        body = self._dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
        data = _HEADER.pack(len(body)) + body
        view = memoryview(data)
        while view:
            written = self._write(self._out, view)
            view = view[written:]

    # -- commands -------------------------------------------------------------------------------

    def load(self, payload: dict) -> dict:
        self.timeout = payload["timeout"]
        self.stdout_limit = payload["stdout_bytes"]
        self.result_bytes = payload["result_bytes"]
        sys.setrecursionlimit(payload["recursion_limit"])
        for entry in reversed(payload["sys_path"]):
            if entry not in sys.path:
                sys.path.insert(0, entry)
        name = payload["module_name"]
        capture = CappedWriter(self.stdout_limit)
        sys.stdout = capture
        self._arm(payload["load_timeout"])
        try:
            module = import_implementation(payload, name)
            function = getattr(module, payload["entry_point"], None)
        except CallTimeout:
            return {"ok": False, "kind": "timeout", "error": f"loading took longer than {payload['load_timeout']} s"}
        except SyntaxError as error:
            return {"ok": False, "kind": "syntax", "error": f"line {error.lineno}: {error.msg}"}
        except BaseException as error:  # noqa: BLE001 - whatever the module raises is the verdict
            return {"ok": False, "kind": "import", "error": _describe_exception(error)}
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
            self._progress[:] = _PROGRESS.pack(position)
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
        pending: list[dict] = []
        last_flush = received = self._monotonic()
        # Past the caller's deadline, stop between calls: the caller's budget is spent.
        deadline = payload.get("deadline")
        for index, blob in zip(indices, blobs, strict=True):
            if deadline is not None and self._monotonic() - received > deadline:
                self._disarm()
                self.send({"results": pending, "done": True, "stopped": True})
                return
            self._progress[:] = _PROGRESS.pack(index)
            started = self._monotonic()
            pending.append(self._call(blob, compare_mutation))
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
                outcome["a"] = encode([list(args), kwargs], self.limits)
        except CallTimeout:
            outcome = {"k": "timeout", "d": f"exceeded {timeout:g} s"}
        except BaseException as error:  # noqa: BLE001 - what the program raises is its behaviour
            try:
                outcome = {"k": "raised", "e": _exception_fields(error)}
                if mutable:
                    outcome["a"] = encode([list(args), kwargs], self.limits)
            except CallTimeout:
                outcome = {"k": "timeout", "d": f"exceeded {timeout:g} s"}
        finally:
            _Timer.running = False  # the timer itself is replaced by the next call's (see _Timer)
        outcome["s"] = self._monotonic() - started
        sys.stdout = self._real_stdout
        if capture.total:
            outcome["o"] = capture.text()
        value = outcome.get("v")
        if type(value) is list and len(self._dumps(value)) > self.result_bytes:
            outcome["v"] = ["truncated", "size"]
        return outcome

    def _arm(self, seconds: float) -> None:
        # After the first expiry, keep firing: a bare `except:` in the program must not win.
        self._setitimer(signal.ITIMER_REAL, seconds, 0.05)
        _Timer.running = True

    def _disarm(self) -> None:
        _Timer.running = False
        self._setitimer(signal.ITIMER_REAL, 0, 0)

    def serve(self) -> None:
        while True:
            message = self.receive()
            if message is None:
                return
            command, payload = message
            if command == "load":
                self.send(self.load(payload))
            elif command == "run":
                self.run(payload)
            elif command == "load_many":
                self.send(self.load_many(payload))
            elif command == "run_cells":
                self.run_cells(payload)
            elif command == "ping":
                self.send({"ok": True})
            else:
                self.send({"ok": False, "error": f"unknown command {command!r}"})


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


def _shield_from_builtin_patches() -> None:
    """Give the worker's own modules private copies of the builtins.

    A program may replace ``builtins.len`` or ``builtins.isinstance``; that is its behaviour and
    it keeps it, but the encoder and the protocol must go on working, so their modules look
    names up in their own globals first.
    """
    import json.decoder
    import json.encoder

    from divergent import values

    names = {k: v for k, v in builtins.__dict__.items() if not k.startswith("__")}
    for namespace in (globals(), vars(values), vars(json), vars(json.encoder), vars(json.decoder)):
        for name, value in names.items():
            namespace.setdefault(name, value)


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


def _on_timer(signum: int, frame: object) -> None:
    if _Timer.running:
        raise CallTimeout()


def _exception_fields(error: BaseException) -> list:
    kind = type(error)
    try:
        message = str(error)
    except Exception:  # noqa: BLE001 - an untrusted __str__
        message = "<unprintable message>"
    if not isinstance(message, str):
        message = "<unprintable message>"
    if len(message) > 2000:
        message = message[:2000] + "…"
    mro = [qualified_name(k) for k in kind.__mro__[1:] if k not in (object, BaseException)]
    return [qualified_name(kind), message, mro]


def _describe_exception(error: BaseException) -> str:
    name, message, _ = _exception_fields(error)
    frames = traceback.extract_tb(error.__traceback__)
    where = ""
    for frame in reversed(frames):
        if "divergent" not in frame.filename:
            where = f" (at {os.path.basename(frame.filename)}:{frame.lineno})"
            break
    return f"{name}: {message}{where}" if message else f"{name}{where}"


def _apply_limits(memory_mb: int, file_bytes: int) -> None:
    def lower(which: int, value: int) -> None:
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        try:
            resource.setrlimit(which, (value, hard if hard != resource.RLIM_INFINITY else value))
        except (ValueError, OSError):
            pass

    lower(resource.RLIMIT_AS, memory_mb * 1024 * 1024)
    lower(resource.RLIMIT_FSIZE, file_bytes)
    lower(resource.RLIMIT_CORE, 0)
    # Deep recursion needs a deep C stack; the main thread's stack grows up to this limit.
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        target = 512 * 1024 * 1024
        if hard == resource.RLIM_INFINITY or hard >= target:
            resource.setrlimit(resource.RLIMIT_STACK, (target, hard))
    except (ValueError, OSError):
        pass


def main() -> None:
    memory_mb, file_bytes, progress_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    # Keep the protocol on private descriptors; the program's fds 0, 1 and 2 go nowhere.
    in_fd, out_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = open(os.devnull)  # noqa: SIM115
    _apply_limits(memory_mb, file_bytes)
    signal.signal(signal.SIGALRM, _on_timer)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the parent
    _shield_from_builtin_patches()
    gc.freeze()
    Worker(in_fd, out_fd, progress_path).serve()


if __name__ == "__main__":
    main()
