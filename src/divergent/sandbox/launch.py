"""The parent's side of the launcher (:mod:`divergent.sandbox.child.launcher`): limits of one run,
the jobs, and a started launcher that runs them.

A :class:`LauncherProcess` is one sandboxed launcher serving one program (a program under test, a
validator, a checker, a generator, or a compiler during a build). Jobs go to it in batches; it
answers one result per job (:class:`ProgramRun`). Everything it sends is untrusted (it runs next to
the programs): frames are read by :mod:`divergent.sandbox.frames` (size-limited JSON) and every
field is checked here; anything malformed ends the launcher and counts as a crash of the run.
"""

from __future__ import annotations

import contextlib
import math
import os
import selectors
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from divergent.errors import InvalidArgument, SandboxUnavailable
from divergent.records import Outcome, OutcomeKind
from divergent.sandbox.cgroups import RunCgroup, make_run_cgroup
from divergent.sandbox.frames import ChildConnection, ChildGone, ProtocolViolation, start_child
from divergent.sandbox.isolation import Isolation
from divergent.sandbox.limits import Limits

_LAUNCHER_MODULE = "divergent.sandbox.child.launcher"
_MIB = 1 << 20
#: room above the user's task count when a run starts (the count moves while a search runs)
_TASK_MARGIN = 256
#: the launcher's own process limits (it is trusted code; each run gets the run limits): address
#: space large enough for a JVM to reserve its heap and class space
_LAUNCHER_LIMITS = Limits(memory_mb=64 * 1024, timeout=60.0)
#: seconds past a deadline after which the runs still going are stopped
DEADLINE_GRACE = 0.05
_KINDS = {
    "ok": OutcomeKind.OK,
    "runtime-error": OutcomeKind.RUNTIME_ERROR,
    "timeout": OutcomeKind.TIMEOUT,
    "memory-limit": OutcomeKind.MEMORY_LIMIT,
    "output-limit": OutcomeKind.OUTPUT_LIMIT,
}


@dataclass(frozen=True)
class ProgramLimits:
    """The limits of one run of a whole program, applied by the launcher from outside the program."""

    #: CPU seconds; the wall clock gets ``wall_factor`` times as much
    time_limit: float = 2.0
    wall_factor: float = 2.0
    memory_mb: int = 256
    stack_mb: int = 256
    #: bytes of stdout kept; a run that writes more is ``output-limit``
    output_bytes: int = 16 * _MIB
    #: the largest file a run may write
    file_bytes: int = 64 * _MIB
    #: processes (and threads) a run may add; root is exempt from this limit (the sandbox's pids
    #: cgroup caps it there)
    processes: int = 64
    #: bytes kept of each end (head and tail) of a run's stderr
    stderr_bytes: int = 4096
    #: how many times the time limit this is (a re-run that confirms a timeout scales it): a
    #: timeout's detail says so
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.time_limit <= 0 or self.wall_factor < 1:
            raise InvalidArgument(f"time limit {self.time_limit!r} must be > 0 (wall factor >= 1)")
        if self.memory_mb < 8 or self.stack_mb < 1:
            raise InvalidArgument(f"memory limit {self.memory_mb!r} MiB must be at least 8")
        if self.output_bytes < 1:
            raise InvalidArgument("the output cap must be at least one byte")

    @property
    def wall_seconds(self) -> float:
        return self.time_limit * self.wall_factor

    def scaled(self, factor: float) -> ProgramLimits:
        """The same limits with ``factor`` times the time (a confirmation of a timeout)."""
        return ProgramLimits(
            time_limit=self.time_limit * factor, wall_factor=self.wall_factor, memory_mb=self.memory_mb,
            stack_mb=self.stack_mb, output_bytes=self.output_bytes, file_bytes=self.file_bytes,
            processes=self.processes, stderr_bytes=self.stderr_bytes, scale=self.scale * factor,
        )

    def wire(self, *, address_space: bool = True) -> dict[str, float | int]:
        """The limits as the launcher receives them. ``address_space=False`` for a JVM, which
        reserves far more address space than it uses and limits its heap itself (``-Xmx``)."""
        processes = 0
        if self.processes and os.getuid() != 0:
            # RLIMIT_NPROC counts every task (process and thread) of the user on the machine; the
            # launcher cannot see them from its PID namespace. Root is exempt (the cgroup caps it).
            processes = _user_tasks() + self.processes + _TASK_MARGIN
        return {
            "cpu": self.time_limit,
            "wall": self.wall_seconds,
            "memory": self.memory_mb * _MIB if address_space else 0,
            "memory_limit": self.memory_mb * _MIB,
            "stack": self.stack_mb * _MIB,
            "file": self.file_bytes,
            "output": self.output_bytes,
            "stderr": self.stderr_bytes,
            "processes": processes,
            "scale": self.scale,
        }


def _user_tasks() -> int:
    """The processes and threads this user runs now (from /proc)."""
    uid, count = os.getuid(), 0
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            with contextlib.suppress(OSError, IndexError, ValueError), open(f"/proc/{entry}/status", "rb") as handle:
                status = handle.read()
                owner = status.split(b"\nUid:", 1)[1].split(None, 1)[0]
                if int(owner) == uid:
                    count += int(status.split(b"\nThreads:", 1)[1].split(None, 1)[0])
    return count


@dataclass(frozen=True)
class Job:
    """One run: the bytes on stdin, extra arguments, files put in the run's directory first."""

    stdin: bytes = b""
    args: tuple[str, ...] = ()
    files: tuple[tuple[str, bytes], ...] = ()
    #: keep the run's directory afterwards (a build reads what the compiler wrote)
    keep: bool = False

    def wire(self) -> dict:
        return {"stdin": self.stdin, "args": list(self.args), "files": dict(self.files), "keep": self.keep}


@dataclass(frozen=True)
class ProgramRun:
    """How one run ended, as the launcher reported it (checked)."""

    kind: OutcomeKind
    stdout: str = ""
    exit_code: int | None = None
    signal: str | None = None
    cpu_seconds: float = 0.0
    seconds: float = 0.0
    memory_kb: int | None = None
    stderr: str = ""
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.kind is OutcomeKind.OK

    def outcome(self) -> Outcome:
        return Outcome(
            kind=self.kind, stdout=self.stdout, detail=self.detail, seconds=self.seconds,
            exit_code=self.exit_code, signal=self.signal, stderr=self.stderr, memory_kb=self.memory_kb,
        )

    @classmethod
    def crashed(cls, how: str) -> ProgramRun:
        """The launcher itself died (or broke the protocol) during this run."""
        return cls(kind=OutcomeKind.CRASH, detail=f"the launcher died: {how}")

    @classmethod
    def hung(cls, seconds: float) -> ProgramRun:
        return cls(kind=OutcomeKind.TIMEOUT, detail=f"no answer within {seconds:g} s; killed", seconds=seconds)


def timeout_detail(run: ProgramRun, limits: ProgramLimits) -> str:
    """Which limit stopped a run that timed out, said from its numbers and the limits it ran under:
    the kernel at the CPU limit (whole seconds, counted in clock ticks: that count can run ahead of
    the one read after the run), the CPU limit passed by a run that ended by itself, the CPU limit
    passed by the run's processes together (the launcher stopped it), or the wall clock (the CPU
    limit times ``wall_factor``: a run that waits, or a busy machine)."""
    limit = f"the {limits.time_limit:g} s CPU limit"
    if abs(limits.scale - 1.0) > 1e-9:
        limit += f": {limits.scale:g}x the {limits.time_limit / limits.scale:g} s time limit, on this re-run"
    cpu = run.cpu_seconds
    if run.signal in ("SIGXCPU", "SIGKILL"):
        kernel = max(1, math.ceil(limits.time_limit))
        rounded = ", rounded up to whole seconds" if kernel != limits.time_limit else ""
        measured = (f"{cpu:.2f} s measured after the run (the kernel counts in clock ticks: its count can run ahead)"
                    if cpu < kernel else f"{cpu:.2f} s used")
        return f"CPU limit: stopped by the kernel at {kernel} s of CPU ({limit}{rounded}); {measured}"
    if run.exit_code is not None or run.signal is not None:
        return f"CPU limit: {cpu:.2f} s of CPU, over {limit} (it ran to its end)"
    if cpu > limits.time_limit and run.seconds < limits.wall_seconds:
        return f"CPU limit: {cpu:.2f} s of CPU used by the run's processes together, over {limit}; killed"
    factor = limits.wall_factor
    times = "as long as" if factor == 1 else "twice" if factor == 2 else f"{factor:g}x"
    return f"wall-clock limit: no end within {limits.wall_seconds:g} s ({times} {limit}); {cpu:.2f} s of CPU used; killed"


def result_from_wire(raw: object, output_cap: int, stderr_cap: int) -> ProgramRun:
    """A run's result as the launcher sent it; ValueError for anything malformed."""
    if not isinstance(raw, dict):
        raise ValueError("a result is not an object")
    kind = _KINDS[raw["k"]]
    stdout, stderr, detail = raw["o"], raw.get("e", ""), raw.get("d", "")
    if not all(isinstance(text, str) for text in (stdout, stderr, detail)):
        raise ValueError("texts are not strings")
    # invalid bytes arrive as 4-character escapes: the cap on characters is four times the bytes
    if len(stdout) > 4 * output_cap or len(stderr) > 8 * stderr_cap + 16 or len(detail) > 1000:
        raise ValueError("a text over its cap")
    exit_code, signal_name = raw.get("x"), raw.get("g")
    if exit_code is not None and (type(exit_code) is not int or not 0 <= exit_code <= 255):
        raise ValueError("bad exit code")
    if signal_name is not None and (not isinstance(signal_name, str) or len(signal_name) > 20):
        raise ValueError("bad signal")
    numbers = [raw.get(name, 0) for name in ("c", "w", "m")]
    if not all(type(n) in (int, float) and math.isfinite(n) and n >= 0 for n in numbers):
        raise ValueError("bad numbers")
    return ProgramRun(
        kind=kind, stdout=stdout, exit_code=exit_code, signal=signal_name, cpu_seconds=float(numbers[0]),
        seconds=float(numbers[1]), memory_kb=int(numbers[2]), stderr=stderr, detail=detail,
    )


@dataclass
class _Batch:
    indices: list[int]
    reported: int = 0
    last_progress: float = field(default_factory=time.monotonic)
    stopped: bool = False


class LauncherProcess(ChildConnection):
    """One sandboxed launcher for one program: set up once, then runs jobs in batches.

    ``mode`` "exec" runs ``argv`` (plus each job's arguments); "python" runs ``script`` from a
    fork of the launcher. ``read_only`` lists the paths the program needs to read (its binary, its
    directory, the toolchain): the sandbox's bind list (:func:`divergent.sandbox.builds.sandbox_paths`).
    """

    def __init__(self, *, mode: str, limits: ProgramLimits, level: Isolation, argv: Sequence[str] = (),
                 script: str = "", address_space: bool = True, read_only: Sequence[str] = (),
                 work_dir: str | None = None, spawner: str = "", java: dict | None = None) -> None:
        self.mode, self.argv, self.script = mode, list(argv), script
        self.limits = limits
        self.address_space = address_space
        self.level = level
        self.read_only = tuple(read_only)
        #: a host directory the runs work in (``work_dir/run``), bound writable, for output the
        #: parent reads back (a build's); None: a directory private to the sandbox
        self.work_dir = work_dir
        #: the memory cgroup every run joins (None where cgroups are not writable): the cap of the
        #: run's whole process family
        self.run_cgroup: RunCgroup | None = make_run_cgroup(limits.memory_mb * _MIB)
        cgroup = self.run_cgroup
        try:
            # PID 1 of its namespace (a run cannot signal it), with only the interpreter and the
            # program's own files in reach (nothing of where divergent was started)
            process = start_child(
                _LAUNCHER_MODULE, limits=_LAUNCHER_LIMITS, level=level, read_only=self.read_only,
                writable=(work_dir,) if work_dir else (), as_pid_1=True, narrow=True,
                settings={"run_cgroup": cgroup.wire()} if cgroup else None, pass_fds=cgroup.fds if cgroup else (),
            )
        except BaseException:
            if cgroup is not None:
                cgroup.remove()
            raise
        finally:
            if cgroup is not None:
                cgroup.close_fds()
        # a byte of output is at most 4 characters (\xNN) and at most 6 bytes of JSON (\u001b, \\xNN);
        # every field of every frame is checked (result_from_wire): no walk for nesting
        super().__init__(process, max_frame_bytes=6 * limits.output_bytes + 48 * limits.stderr_bytes + (1 << 20),
                         check_nesting=False)
        self.batch: _Batch | None = None
        #: whether the launcher starts runs through the spawn helper (known once it is ready)
        self.spawner_used = False
        self.send("setup", {"mode": mode, "argv": self.argv, "script": script,
                            "limits": limits.wire(address_space=address_space),
                            "run_dir": os.path.join(work_dir, "run") if work_dir else None,
                            "spawner": spawner or None, "java": java})

    def ready(self, timeout: float = 30.0) -> None:
        """Wait for the answer to the setup; SandboxUnavailable when it fails."""
        try:
            answer = self.wait_frame(timeout)
        except ChildGone as error:
            raise SandboxUnavailable(f"the launcher did not start ({self.kill()}): {error}") from None
        if answer is None or not answer.get("ok"):
            why = answer.get("error") if answer else "no answer"
            self.kill()
            raise SandboxUnavailable(f"the launcher could not be set up: {str(why)[:300]}")
        self.spawner_used = answer.get("spawner") is True

    @property
    def patience(self) -> float:
        """How long a run may go without an answer before the launcher counts as hung."""
        return self.limits.wall_seconds + max(2.0, self.limits.wall_seconds * 0.5)

    def start(self, jobs: Sequence[Job], indices: Sequence[int], deadline: float | None) -> None:
        """Send a batch; raises ChildGone when the launcher is gone."""
        self.batch = _Batch(indices=list(indices))
        self.send("run", {
            "jobs": [job.wire() for job in jobs],
            "indices": list(indices),
            "deadline": None if deadline is None else max(0.0, deadline - time.monotonic()),
        })

    def collect(self) -> tuple[list[tuple[int, ProgramRun]], bool]:
        """The results available now, and whether the batch is done. Raises ChildGone or
        ProtocolViolation (then the launcher must be killed)."""
        batch = self.batch
        assert batch is not None
        found: list[tuple[int, ProgramRun]] = []
        for frame in self.read_frames():
            if frame.get("done"):
                if not frame.get("stopped") and batch.reported != len(batch.indices):
                    raise ProtocolViolation("missing results")
                batch.stopped = bool(frame.get("stopped"))
                self.batch = None
                return found, True
            index = frame.get("i")
            if batch.reported >= len(batch.indices) or index != batch.indices[batch.reported]:
                raise ProtocolViolation("a result out of order")
            try:
                result = result_from_wire(frame.get("r"), self.limits.output_bytes, self.limits.stderr_bytes)
            except (KeyError, TypeError, ValueError) as error:
                raise ProtocolViolation(f"a malformed result ({error})") from None
            if result.kind is OutcomeKind.TIMEOUT:
                result = replace(result, detail=timeout_detail(result, self.limits))
            batch.reported += 1
            batch.last_progress = time.monotonic()
            found.append((index, result))
        return found, False

    def unreported(self) -> list[int]:
        batch = self.batch
        return [] if batch is None else batch.indices[batch.reported :]

    def run(self, jobs: Sequence[Job], *, deadline: float | None = None) -> list[ProgramRun | None]:
        """Run ``jobs`` one after the other and wait for every result (None: not run before the
        deadline). A launcher that dies or hangs gives that run a crash or timeout result and the
        rest of the batch ``None``: call :meth:`alive` and start a new launcher to go on. A run
        still going :data:`DEADLINE_GRACE` past the deadline is stopped (the launcher with it): the
        deadline holds whatever the run's time limit."""
        results: list[ProgramRun | None] = [None] * len(jobs)
        if not jobs:
            return results
        try:
            self.start(jobs, range(len(jobs)), deadline)
        except ChildGone:
            results[0] = ProgramRun.crashed(self.kill())
            return results
        with selectors.DefaultSelector() as selector:
            selector.register(self.fileno(), selectors.EVENT_READ)
            while True:
                assert self.batch is not None
                now = time.monotonic()
                waited = now - self.batch.last_progress
                if waited > self.patience:
                    culprit = self.unreported()[0]
                    self.kill()
                    results[culprit] = ProgramRun.hung(self.patience)
                    return results
                if deadline is not None and now >= deadline + DEADLINE_GRACE:
                    self.kill()  # what it had not reported stays not run
                    return results
                wait = self.patience - waited
                if deadline is not None:
                    wait = min(wait, deadline + DEADLINE_GRACE - now)
                selector.select(max(0.0, wait))
                try:
                    found, done = self.collect()
                except ChildGone:
                    unreported = self.unreported()
                    how = self.kill()
                    if unreported:
                        results[unreported[0]] = ProgramRun.crashed(how)
                    return results
                for index, result in found:
                    results[index] = result
                if done:
                    return results

    @property
    def alive(self) -> bool:
        return self.process.popen.poll() is None and not self.end_of_file

    def kill(self) -> str:
        how = super().kill()
        if self.run_cgroup is not None:
            self.run_cgroup.remove()
            self.run_cgroup = None
        return how

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.kill()
