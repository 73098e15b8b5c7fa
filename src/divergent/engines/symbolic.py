"""The symbolic engine: CrossHair looks for inputs where the implementations differ.

Symbolic execution runs the implementations, so it runs in the sandbox: on its first
:meth:`~SymbolicEngine.propose` the engine starts :mod:`divergent.engines._symbolic_runner` at the
run's isolation level and limits, sends it the implementations, and from then on only polls. The
runner explores implementation 0 against each other one, round-robin, for the run's seconds, and
writes one JSON line per diff it finds, the diff's arguments in the safe encoding of
:mod:`divergent.values`; the engine rebuilds them with :func:`~divergent.values.decode_builtin`
(never by unpickling) and proposes them like any other engine's inputs. The search loop runs them
in its own workers and judges them: CrossHair's word is a candidate, never a verdict.

Needs the ``symbolic`` extra (``crosshair-tool``) and annotated parameters (CrossHair builds its
symbolic values from the annotations); without either the engine stops as "unsupported".
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from divergent.engines.base import Engine, EngineContext
from divergent.errors import DivergentError, EngineCannotProceed, StopReason
from divergent.model import Input, Signature
from divergent.sandbox.isolation import IsolatedProcess, Limits, choose_level, python_command, spawn
from divergent.values import NotBuiltin, decode_builtin

__all__ = ["SymbolicEngine"]

_RUNNER_MODULE = "divergent.engines._symbolic_runner"
_DEFAULT_SECONDS = 20.0
#: past the run's seconds, how long the runner may take to start (CrossHair imports slowly) and stop
_START_AND_STOP_GRACE = 5.0
#: a protocol line longer than this is dropped (the runner caps what it encodes well below it)
_MAX_LINE_BYTES = 32 * 1024 * 1024
_STDERR_TAIL = 2000
_MAX_READ_PER_POLL = 8 * 1024 * 1024


class SymbolicEngine(Engine):
    """Proposes the inputs CrossHair's symbolic search finds to split the implementations."""

    name = "symbolic"
    background = True

    def __init__(self, context: EngineContext) -> None:
        super().__init__(context)
        self._process: IsolatedProcess | None = None
        self._stderr_path: Path | None = None
        self._fd: int | None = None
        self._buffer = b""
        self._end_of_file = False
        self._deadline = 0.0
        self._ready: deque[Input] = deque()
        self._seen: set[str] = set()
        self._stop: EngineCannotProceed | None = None
        #: what the runner said last about itself: ("unsupported" | "failed" | "done", text)
        self._verdict: tuple[str, str] | None = None
        self._notes: list[str] = []
        self._proposed = 0
        self._rejected = 0
        self._undecodable = 0
        self._preconditions: Callable[[Input], bool] | None = None

    @property
    def runner_pid(self) -> int | None:
        """The process id of the sandboxed runner (its wrapper at namespace levels), once started."""
        return self._process.pid if self._process is not None else None

    # -- Engine interface ----------------------------------------------------------------------

    def propose(self, n: int) -> list[Input]:
        if self._stop is not None:
            raise self._stop
        if self._process is None:
            self._start()
        self._read_available()
        if self._runner_done() and not self._ready:
            self._stop = self._stop_reason()
            self.close()
            raise self._stop
        batch = [self._ready.popleft() for _ in range(min(n, len(self._ready)))]
        self._proposed += len(batch)
        return batch

    def close(self) -> None:
        """Kill the runner and everything it started (it may be looping in an implementation)."""
        if self._process is not None:
            self._process.kill()
        if self._stop is None:
            self._stopping("exhausted", "closed")
        self._fd = None
        if self._stderr_path is not None:
            with contextlib.suppress(OSError):
                self._stderr_path.unlink()
            self._stderr_path = None

    # -- starting the runner -------------------------------------------------------------------

    def _start(self) -> None:
        context = self.context
        if importlib.util.find_spec("crosshair") is None:
            raise self._stopping(
                "unsupported", "symbolic needs crosshair-tool: pip install 'divergent[symbolic]'"
            )
        if len(context.implementations) < 2:
            raise self._stopping("exhausted", "fewer than two implementations: nothing to compare")
        if any(impl.language != "python" for impl in context.implementations):
            raise self._stopping("unsupported", "symbolic execution works on Python functions only")
        unannotated = [p.name for p in context.signature.parameters if not p.annotated]
        if unannotated:
            raise self._stopping(
                "unsupported",
                f"symbolic execution needs annotated parameters ({', '.join(unannotated)} have none)",
            )
        limits = context.limits or Limits()
        seconds = context.seconds if context.seconds is not None else _DEFAULT_SECONDS
        handle, stderr_name = tempfile.mkstemp(prefix="divergent-symbolic-", suffix=".stderr")
        os.close(handle)
        self._stderr_path = Path(stderr_name)
        try:
            level = choose_level(context.isolation)
            self._process = spawn(
                python_command(_RUNNER_MODULE), limits=limits, level=level, stderr_to=self._stderr_path
            )
        except DivergentError as error:  # no sandbox, no symbolic engine; the others go on
            self.close()
            raise self._stopping("failed", f"cannot start the symbolic runner: {error}") from error
        self._deadline = time.monotonic() + seconds + _START_AND_STOP_GRACE
        request = self._request(limits, seconds)
        stdin = self._process.popen.stdin
        assert stdin is not None and self._process.popen.stdout is not None
        try:
            # Small (sources travel only when there is no file), and the runner reads it first thing.
            stdin.write(json.dumps(request).encode("utf-8"))
            stdin.close()
        except OSError:
            pass  # the runner died at once: its exit status tells why
        self._fd = self._process.popen.stdout.fileno()
        os.set_blocking(self._fd, False)

    def _request(self, limits: Limits, seconds: float) -> dict[str, Any]:
        implementations = [
            {
                "label": impl.label,
                "path": impl.path,
                "module_name": impl.module_name,
                "sys_path": list(impl.sys_path),
                # The runner executes the source only when there is no file to import.
                "source": impl.source if impl.path is None else "",
                "entry_point": impl.entry_point,
                "setup_code": impl.setup_code,
            }
            for impl in self.context.implementations
        ]
        return {
            "implementations": implementations,
            "pairs": [[0, j] for j in range(1, len(implementations))],
            "seconds": seconds,
            # Symbolic paths run far slower than plain calls: allow two call timeouts per path, but
            # no path may take much of the run (a looping implementation would take it all).
            "per_path_timeout": min(max(1.0, 2 * limits.timeout), max(0.5, seconds / 4)),
            "memory_mb": limits.memory_mb,
            "file_bytes": limits.file_bytes,
            "load_timeout": limits.load_timeout,
            "recursion_limit": limits.recursion_limit,
            "strategy": self.context.settings.symbolic_strategy,
        }

    # -- reading what the runner reports -------------------------------------------------------

    def _read_available(self) -> None:
        """Read whatever the runner has written, without waiting, and turn whole lines into inputs."""
        if self._fd is None or self._end_of_file:
            return
        chunks: list[bytes] = []
        # Bounded, so a runner that writes as fast as we read cannot hold propose() here.
        while sum(map(len, chunks)) < _MAX_READ_PER_POLL:
            try:
                chunk = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                self._end_of_file = True
                break
            chunks.append(chunk)
        self._buffer += b"".join(chunks)
        *lines, self._buffer = self._buffer.split(b"\n")
        if len(self._buffer) > _MAX_LINE_BYTES:
            self._buffer = b""  # not a line the runner would write: drop it
        for line in lines:
            self._handle_line(line)

    def _handle_line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return
        if not isinstance(message, dict):
            return
        event = message.get("event")
        text = str(message.get("text", ""))
        if event == "diff":
            self._add_candidate(message)
        elif event == "note":
            self._notes.append(text)
        elif event in ("unsupported", "failed", "done"):
            self._verdict = (event, text)

    def _add_candidate(self, message: dict) -> None:
        try:
            args = decode_builtin(message.get("args"))
            kwargs = decode_builtin(message.get("kwargs"))
        except (NotBuiltin, TypeError, ValueError, IndexError, KeyError, OverflowError, RecursionError):
            self._undecodable += 1
            return
        if (
            not isinstance(args, list)
            or not isinstance(kwargs, dict)
            or not all(isinstance(k, str) for k in kwargs)
        ):
            self._undecodable += 1
            return
        candidate = Input(args=tuple(args), kwargs=kwargs, how_generated=self.name)
        try:
            key = candidate.key
        except Exception:  # noqa: BLE001 - a value with no canonical key is not proposed
            self._undecodable += 1
            return
        if key in self._seen:
            return
        self._seen.add(key)
        if not self._meets_preconditions(candidate):
            self._rejected += 1
            return
        self._ready.append(candidate)

    def _meets_preconditions(self, candidate: Input) -> bool:
        if self._preconditions is None:
            self._preconditions = _preconditions(self.context)
        try:
            return self._preconditions(candidate)
        except Exception:  # noqa: BLE001 - a predicate that raises does not hold
            return False

    # -- stopping ------------------------------------------------------------------------------

    def _runner_done(self) -> bool:
        """The runner has nothing more to say: it exited and was read to the end, or its time is up
        (then it is killed; what it wrote before is still proposed)."""
        assert self._process is not None
        if self._end_of_file and self._process.popen.poll() is not None:
            return True
        if time.monotonic() > self._deadline:
            self._read_available()  # the last lines it managed to write
            self._process.kill()
            self._fd = None
            self._verdict = self._verdict or ("done", "time is up (the runner was stopped)")
            return True
        return False

    def _stop_reason(self) -> EngineCannotProceed:
        assert self._process is not None
        counts = f"{self._proposed} inputs proposed"
        if self._rejected:
            counts += f", {self._rejected} not meeting the preconditions"
        if self._undecodable:
            counts += f", {self._undecodable} not rebuildable outside the sandbox"
        notes = "".join(f"; {note}" for note in self._notes)
        if self._verdict is not None:
            event, text = self._verdict
            if event == "unsupported":
                return self._stopping("unsupported", text + notes)
            if event == "failed":
                return self._stopping("failed", text + notes)
            return self._stopping("exhausted", f"CrossHair: {text} ({counts}){notes}")
        if self._process.popen.returncode == 0:
            # The runner's alarm ends it at once when an implementation holds it past its time.
            return self._stopping("exhausted", f"CrossHair: time is up ({counts}){notes}")
        status = self._process.exit_description()
        return self._stopping(
            "failed", f"the symbolic runner ended with {status}{self._stderr_tail()}{notes}"
        )

    def _stopping(self, reason: StopReason, message: str) -> EngineCannotProceed:
        self._stop = EngineCannotProceed(reason, message)
        return self._stop

    def _stderr_tail(self) -> str:
        if self._stderr_path is None:
            return ""
        try:
            with self._stderr_path.open("rb") as stream:
                stream.seek(0, os.SEEK_END)
                stream.seek(max(0, stream.tell() - _STDERR_TAIL))
                tail = stream.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""
        return f": {tail.splitlines()[-1]}" if tail else ""


def _preconditions(context: EngineContext) -> Callable[[Input], bool]:
    """The checks every proposed input must pass: the annotations (when the judge is there) and
    the user's requirement."""
    conforms: Callable[[Input, Signature], bool] | None
    try:
        conforms = importlib.import_module("divergent.judge").conforms
    except (ImportError, AttributeError):
        conforms = None
    signature, require = context.signature, context.require

    def check(candidate: Input) -> bool:
        if conforms is not None and not conforms(candidate, signature):
            return False
        return require is None or bool(require(candidate))

    return check
