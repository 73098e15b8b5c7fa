"""One run of a whole program as the launcher sees it: the limits applied before ``exec``, what it
printed (bounded), and how it ended (the outcome's kind, from the rules of docs/programs.md).

Shared by the launcher (:mod:`.launcher`, a process per run) and the warm JVM
(:mod:`.warm_jvm`, a class loader per run). Standard library only, like every child module.
"""

from __future__ import annotations

import contextlib
import math
import os
import resource
import signal
import sys

#: how ``memory-limit`` is recognised besides the peak memory (docs/programs.md)
MEMORY_WORDS = (
    b"std::bad_alloc",
    b"MemoryError",
    b"java.lang.OutOfMemoryError",
    b"Cannot allocate memory",
    b"out of memory",
)
#: a run whose peak resident memory reaches this share of the limit and fails is memory-limit
NEAR_LIMIT = 0.9
READ_BYTES = 1 << 16


class Output:
    """What a run printed: stdout kept up to the cap (a run past it is ``output-limit``), stderr's
    first and last bytes."""

    __slots__ = ("cap", "err_head", "err_tail", "err_total", "kept_err", "stdout")

    def __init__(self, limits: dict) -> None:
        self.cap = int(limits["output"])
        self.kept_err = int(limits["stderr"])
        self.stdout = bytearray()
        self.err_head = bytearray()
        self.err_tail = b""
        self.err_total = 0

    def add_stdout(self, chunk: bytes) -> bool:
        """Keep ``chunk``; whether the run is now past the cap."""
        self.stdout += chunk
        return len(self.stdout) > self.cap

    def add_stderr(self, chunk: bytes) -> None:
        kept = self.kept_err
        self.err_total += len(chunk)
        if len(self.err_head) < kept:
            self.err_head += chunk[: kept - len(self.err_head)]
        self.err_tail = (self.err_tail + chunk)[-kept:]

    @property
    def past_cap(self) -> bool:
        return len(self.stdout) > self.cap

    def stderr(self) -> bytes:
        text = bytes(self.err_head)
        if self.err_total > len(self.err_head):
            rest = self.err_total - len(self.err_head)
            text += b"\n...\n" + self.err_tail[-max(0, min(self.kept_err, rest)):]
        return text

    def kept_stdout(self) -> bytes:
        return bytes(self.stdout[: self.cap])


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def write_file(root: str, name: str, data: bytes) -> None:
    """Write a job's file at its relative path under ``root`` (a source and its declared files),
    never through a link a run left there."""
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"a job's file outside its directory: {name!r}")
    directory = root
    for part in parts[:-1]:
        directory = os.path.join(directory, part)
        if os.path.islink(directory):
            os.unlink(directory)
        os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, parts[-1])
    if os.path.islink(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def stdin_of(data: bytes) -> int:
    """A descriptor to read ``data`` from, from its start, as a run's stdin (a memfd: a program
    that reads less, or more, behaves as on a judge)."""
    fd = os.memfd_create("stdin", os.MFD_CLOEXEC)
    if data:
        write_all(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    return fd


def run_limit_values(limits: dict) -> tuple[int, int, int, int, int]:
    """(CPU seconds, address space bytes or 0, file bytes, stack bytes, processes or 0), as the
    run's rlimits are set from them (by :func:`apply_run_limits`, or the spawn helper)."""
    return (
        max(1, math.ceil(float(limits["cpu"]))),
        max(0, int(limits["memory"])),
        int(limits["file"]),
        int(limits["stack"]),
        max(0, int(limits.get("processes", 0))),
    )


def apply_run_limits(limits: dict) -> None:
    """In a run's process, before the program: its rlimits (never above what the launcher has)."""

    def lower(which: int, value: int) -> None:
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, value))

    cpu, memory, file_bytes, stack, processes = run_limit_values(limits)
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1 if hard == resource.RLIM_INFINITY else min(hard, cpu + 1)))
    if memory > 0:
        lower(resource.RLIMIT_AS, memory)
    lower(resource.RLIMIT_FSIZE, file_bytes)
    lower(resource.RLIMIT_CORE, 0)
    with contextlib.suppress(ValueError, OSError):
        _soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        if hard != resource.RLIM_INFINITY:
            stack = min(stack, hard)
        resource.setrlimit(resource.RLIMIT_STACK, (stack, hard))
    # RLIMIT_NPROC counts every process and thread of the user across the machine: the parent
    # counted them (a PID namespace hides them from here) and sent the cap. Root is exempt (the
    # sandbox's pids cgroup caps it there).
    if processes > 0 and os.getuid() != 0:
        lower(resource.RLIMIT_NPROC, processes)


def classify(status: int, verdict: str, output: Output, cpu: float, seconds: float, peak_kb: int,
             limits: dict) -> dict:
    """The run's result from how it ended (the heuristics for memory: docs/programs.md).
    ``status`` is a wait status; ``verdict`` "output", "wall" or "cpu" (its processes together) when
    the launcher stopped it."""
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    signal_text = signal_name(os.WTERMSIG(status)) if os.WIFSIGNALED(status) else None
    stderr = output.stderr()
    cpu_limit = float(limits["cpu"])
    memory_limit = int(limits["memory_limit"])
    detail = ""
    if verdict == "output":
        kind, detail = "output-limit", f"wrote more than {int(limits['output']):,} bytes"
        exit_code = signal_text = None
    elif verdict == "wall":
        kind, detail = "timeout", f"no end within {float(limits['wall']):g} s of wall clock; killed"
        exit_code = signal_text = None
    elif verdict == "cpu":
        kind, detail = "timeout", f"{cpu:.2f} s of CPU used by the run's processes together, over the {cpu_limit:g} s limit; killed"
        exit_code = signal_text = None
    elif cpu > cpu_limit or signal_text == "SIGXCPU":
        kind, detail = "timeout", f"{cpu:.2f} s of CPU, over the {cpu_limit:g} s limit"
    elif exit_code == 0:
        kind = "ok"
    elif past_memory(stderr, peak_kb, memory_limit, signal_text):
        kind, detail = "memory-limit", f"peak {peak_kb // 1024} MiB, limit {memory_limit // (1 << 20)} MiB"
    else:
        kind = "runtime-error"
        if signal_text == "SIGXFSZ":
            detail = f"wrote a file past {int(limits['file']):,} bytes"
        elif signal_text:
            detail = f"killed by {signal_text}"
        else:
            detail = f"exit code {exit_code}"
    return {
        "k": kind,
        "o": text(output.kept_stdout()),
        "x": exit_code,
        "g": signal_text,
        "c": round(cpu, 6),
        "w": round(seconds, 6),
        "m": int(peak_kb),
        "e": stderr.decode("utf-8", "backslashreplace"),
        "d": detail,
    }


def memory_killed(result: dict, limits: dict) -> None:
    """The result of a run in which the kernel killed a process of the run's memory cgroup."""
    if result["k"] not in ("output-limit", "timeout"):
        result.update(k="memory-limit", x=None, g=None, d=(
            f"the run's processes together went past the {int(limits['memory_limit']) >> 20} MiB "
            "memory limit (one was killed)"))


def text(data: bytes) -> str:
    """What a run printed, as text: invalid UTF-8 shown as ``\\xNN``, as ``backslashreplace``
    decodes it, but at the speed of the codec even when every byte of 16 MiB is invalid (the
    error handler would be called once per byte: seconds)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if b"\\udc" in data:  # the trick below would also rewrite this text: the slow, exact way
        return data.decode("utf-8", "backslashreplace")
    # surrogateescape maps each invalid byte to U+DC80..U+DCFF; the encoder writes those as \udcNN
    escaped = data.decode("utf-8", "surrogateescape").encode("utf-8", "backslashreplace")
    return escaped.replace(b"\\udc", b"\\x").decode("utf-8")


def past_memory(stderr: bytes, peak_kb: int, memory_limit: int, signal_text: str | None) -> bool:
    if any(word in stderr for word in MEMORY_WORDS):
        return True
    if memory_limit and peak_kb * 1024 >= NEAR_LIMIT * memory_limit:
        return True
    # The kernel's OOM killer (or a cgroup's) ends a process with SIGKILL that nobody sent.
    return signal_text == "SIGKILL" and memory_limit > 0 and peak_kb * 1024 >= 0.5 * memory_limit


def exit_status(code: object) -> int:
    """The exit status ``sys.exit(code)`` gives: None → 0, an int as is, anything else printed → 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1
