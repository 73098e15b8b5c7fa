"""The symbolic runner seen from the parent: started once, polled without blocking, killable at once.

:class:`SymbolicProcess` starts :mod:`divergent.sandbox.child.symbolic` in the sandbox at the run's
isolation level and limits, sends it the implementations, and from then on only polls: each
:meth:`~SymbolicProcess.poll` reads what the runner has written so far (a bounded amount, through
:mod:`divergent.sandbox.frames`) and returns the diffs it reported, their arguments still in the safe
encoding of :mod:`divergent.values`. What the runner says about itself (notes, its verdict, how far
it got) is kept for the engine (:class:`divergent.engines.calls.symbolic.SymbolicEngine`) to explain how it
stopped. The implementations run in the runner's own process, so its "every path explored" is read
only when the parent vetted them (``vetted``: code that can reach nothing of that process) and the
runner ran the vetted text.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence

from divergent.programs import PythonFunction
from divergent.sandbox.frames import (
    ChildConnection,
    ChildGone,
    ProtocolViolation,
    implementation_paths,
    implementation_payload,
    start_child,
)
from divergent.sandbox.isolation import Isolation
from divergent.sandbox.limits import Limits

_RUNNER_MODULE = "divergent.sandbox.child.symbolic"
#: past the run's seconds, how long the runner may take to start (CrossHair imports slowly) and stop
_START_AND_STOP_GRACE = 5.0
#: a frame larger than this is a protocol violation (the runner caps what it encodes well below it)
_MAX_FRAME_BYTES = 32 * 1024 * 1024
_STDERR_TAIL = 2000
_MAX_READ_PER_POLL = 8 * 1024 * 1024


class SymbolicProcess:
    """One sandboxed CrossHair runner comparing implementation 0 with each other one."""

    def __init__(
        self,
        implementations: Sequence[PythonFunction],
        *,
        limits: Limits,
        level: Isolation,
        seconds: float,
        strategy: str = "auto",
        vetted: bool = False,
    ) -> None:
        """Start the runner and send it its work (raises :class:`~divergent.errors.DivergentError`
        when no sandbox can be started).

        ``vetted``: the parent has read the implementations' sources and found code a proof may cover
        (:mod:`divergent.engines.calls.provable`). The runner then runs exactly those sources (sent with
        the request, under module names of its own), never the files, which could have changed since
        or have a stale ``.pyc`` beside them; and the sandbox gets none of their directories."""
        #: the runner ran the sources the parent vetted (only then may its account count as a proof)
        self.vetted = vetted
        #: what the runner said last about itself: ("unsupported" | "failed" | "done", text)
        self.verdict: tuple[str, str] | None = None
        #: what the user should know (pairs dropped, paths cut)
        self.notes: list[str] = []
        #: the runner's closing account: paths explored, whether every path of every pair was
        #: explored and compared (``complete``, never true unless ``vetted``), diffs reported; None
        #: until it says "done"
        self.summary: dict | None = None
        #: how far the runner has got: {"paths": n, "seconds": s} (its own account, for display only)
        self.progress: dict = {"paths": 0, "seconds": 0.0}
        self.deadline = time.monotonic() + seconds + _START_AND_STOP_GRACE
        self._ended = False
        process = start_child(
            _RUNNER_MODULE, limits=limits, level=level, capture_stderr=True,
            read_only=[] if vetted else implementation_paths(implementations),
        )
        self._child = ChildConnection(process, max_frame_bytes=_MAX_FRAME_BYTES)
        request = {
            "implementations": [
                _vetted_payload(index, impl) if vetted else implementation_payload(impl)
                for index, impl in enumerate(implementations)
            ],
            "pairs": [[0, j] for j in range(1, len(implementations))],
            "seconds": seconds,
            # Symbolic paths run far slower than plain calls: allow two call timeouts per path, but
            # no path may take much of the run (a looping implementation would take it all).
            "per_path_timeout": min(max(1.0, 2 * limits.timeout), max(0.5, seconds / 4)),
            "strategy": strategy,
        }
        # Small (sources travel only when there is no file), and the runner reads it first thing.
        with contextlib.suppress(ChildGone):  # the runner died at once: its exit status tells why
            self._child.send("explore", request)
        self._child.finish_sending()

    @property
    def pid(self) -> int:
        """The process id of the runner (its wrapper at namespace levels)."""
        return self._child.process.pid

    @property
    def returncode(self) -> int | None:
        return self._child.process.popen.returncode

    def poll(self) -> list[dict]:
        """The diffs the runner reported since the last poll, without waiting (``{"args", "kwargs",
        "pair", "text"}``, arguments encoded); notes and the verdict are kept on the object."""
        if self._ended:
            return []
        try:
            # Bounded, so a runner that writes as fast as we read cannot hold the caller here.
            frames = self._child.read_frames(_MAX_READ_PER_POLL)
        except ProtocolViolation as error:
            self._end()
            self.verdict = ("failed", f"the symbolic runner broke the protocol ({error})")
            return []
        except ChildGone:
            self._ended = True
            return []
        if self._child.end_of_file:
            self._ended = True
        diffs = []
        for message in frames:
            event = message.get("event")
            text = str(message.get("text", ""))
            if event == "diff":
                diffs.append(message)
            elif event == "note":
                self.notes.append(text)
            elif event == "progress":
                self._take_progress(message)
            elif event in ("unsupported", "failed", "done"):
                self.verdict = (event, text)
                if event == "done":
                    self._take_progress(message)
                    self.summary = {
                        "paths": message.get("paths") if type(message.get("paths")) is int else 0,
                        # Code that could reach the runner's descriptor could have written this
                        # frame itself: "complete" is read only from a runner of vetted code
                        # ("claimed": what the runner said, for a note at most).
                        "complete": self.vetted and message.get("complete") is True,
                        "claimed": message.get("complete") is True,
                        "diffs": message.get("diffs") if type(message.get("diffs")) is int else None,
                        "strategy": str(message.get("strategy", "")),
                    }
        return diffs

    def _take_progress(self, message: dict) -> None:
        paths, seconds = message.get("paths"), message.get("seconds")
        if type(paths) is int and 0 <= paths < 2**53 and type(seconds) in (int, float) and 0 <= seconds < 1e7:
            self.progress = {"paths": paths, "seconds": float(seconds)}

    def finished(self) -> bool:
        """Whether the runner has nothing more to say: it exited and was read to the end, or its
        time is up."""
        return self._exited() or time.monotonic() > self.deadline

    def stop(self) -> list[dict]:
        """Kill the runner; the diffs it wrote before. A runner that had not ended by itself gets
        the verdict "time is up"."""
        diffs = self.poll()  # the last frames it managed to write
        exited = self._exited()
        self._end()
        if not exited:
            self.verdict = self.verdict or ("done", "time is up (the runner was stopped)")
        return diffs

    def _exited(self) -> bool:
        return self._ended and self._child.process.popen.poll() is not None

    def exit_description(self) -> str:
        return self._child.process.exit_description()

    def stderr_tail(self) -> str:
        """``": <the last line the runner wrote to stderr>"``, or "" (for crash messages)."""
        tail = self._child.process.stderr_tail(_STDERR_TAIL).strip()
        return f": {tail.splitlines()[-1]}" if tail else ""

    def _end(self) -> None:
        self._child.kill()
        self._ended = True

    def close(self) -> None:
        """Kill the runner and everything it started (it may be looping in an implementation); what
        it wrote last is read first (its progress, for the report)."""
        self.poll()
        self._end()
        self._child.process.close_stderr()


def _vetted_payload(index: int, impl: PythonFunction) -> dict:
    """An implementation whose source the parent vetted, to be run from that very text."""
    return {
        "label": impl.label,
        "path": None,
        "source": impl.source,
        "module_name": f"divergent_vetted_{index}",
        "sys_path": [],
        "entry_point": impl.entry_point,
        "setup_code": impl.setup_code,
    }
