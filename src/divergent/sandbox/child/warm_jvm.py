"""A warm JVM for a Java program's runs: one JVM per launcher, each run in a fresh class loader.

The JVM runs divergent's Java harness (``sandbox/helper_sources/DivergentHarness.java``, which says
what a run gets of a new JVM and what it does not). It is started like a run of the program: in
the run's memory cgroup, with the run's limits but the CPU time (it lives across runs), in a
process group of its own, and under a system-call filter installed before its first instruction
(:func:`.kit.no_new_processes_program`): it can start threads but no process, and a ``fork`` kills
it. Nothing in the JVM is trusted once it ran a program's code (the harness shares it with the
program, which can switch it off by reflection): what decides a verdict is measured here, outside
the JVM, as for a JVM per run: the run's CPU time (the JVM's CPU clock, every thread of it, over the
run), the wall clock, the output cap (the run's stdout and stderr are FIFOs read here), the memory
cgroup's kills; past a limit the JVM is killed (and another started for the next run). Between
batches the JVM is stopped (``SIGSTOP``): threads a run left behind run only during the program's
own later runs, on their clock.

The harness answers on a pipe (lines, checked here; anything unexpected is as if it had said
"cold"). It says "cold" when it cannot give a run what a new JVM would (a shutdown hook, a
process, native code, a security manager of the program's own, no ``main``): the launcher then
runs that input in a JVM of its own, and after a few such runs every input. A JVM that dies under
a run (killed for memory, by the filter for starting a process, or by the program's own ``halt``
around the harness) also sends that input to a JVM of its own, so the outcome is the one a JVM per
run gives. A run after which the
harness asks for a fresh JVM ("discard": threads left running, an out-of-memory error) keeps its
outcome, and the JVM is replaced.
"""

from __future__ import annotations

import contextlib
import os
import platform
import select
import signal
import tempfile
import time
from collections.abc import Callable

from divergent.sandbox.child.containment import RunGroup, Scratch
from divergent.sandbox.child.kit import no_new_processes_program
from divergent.sandbox.child.runs import Output, classify, write_all
from divergent.sandbox.child.spawn import Starter

#: the flags that let the harness give each run the standard streams and System.exit of its own;
#: and a heap that starts small and gives back what a run used (the same -Xmx as a cold run: the
#: garbage of earlier runs must not make the JVM's memory, which the cgroup counts, grow)
HARNESS_FLAGS = ("-Djava.security.manager=allow", "--add-opens=java.base/java.io=ALL-UNNAMED",
                 "-Xms8m", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30")
#: CPU seconds a warm JVM may use over its life (its runs are limited one by one, from here)
_LIFE_CPU_SECONDS = 3600
#: how often the run's CPU time is looked at while it runs
_CPU_CHECK_SECONDS = 0.05
#: how long the JVM may take to start and say it is ready
_READY_SECONDS = 60.0
#: "cold" runs, unexpected deaths or discarded JVMs after which every run gets a JVM of its own
_STRIKES = 3
_READ = 1 << 16
_LINE_BYTES = 200


class HarnessFailed(Exception):
    """The warm JVM could not vouch for this run: run it in a JVM of its own."""


class WarmJvm:
    """The warm JVM of one launcher (started lazily, replaced when it must be)."""

    def __init__(self, java: dict, limits: dict, environment: dict[str, str], run_dir: str, group: RunGroup,
                 helper: str | None, scratch: Scratch) -> None:
        self.limits = limits
        self.group = group
        self.scratch = scratch
        self.argv = [java["java"], *java["flags"], *HARNESS_FLAGS, "-cp", java["harness"], "DivergentHarness"]
        self.classes, self.main = java["classes"], java["main"]
        jvm_limits = dict(limits, cpu=_LIFE_CPU_SECONDS, memory=0)
        # its memory counts with the runs' (not its CPU time: it is measured on its own clock)
        memory = [group.procs] if group.memory else []
        no_processes = no_new_processes_program(platform.machine())
        self.starter = Starter(self.argv, environment, run_dir, jvm_limits, memory, helper,
                               filter_program=no_processes)
        #: stopped between batches
        self.paused = False
        #: every run gets a JVM of its own from now on (from the start where no filter can keep the
        #: warm JVM from starting processes: an architecture the filter does not know)
        self.cold = no_processes is None
        self.strikes = 0
        self.pid = 0
        self.runs = 0
        self._commands = self._status = self._pidfd = -1
        self._out = self._err = -1
        self._control = ""
        self._buffer = b""
        self._cpu_at_kill = 0.0
        self.ready = False

    # -- the JVM's life ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start a JVM (its readiness is awaited by the first run)."""
        self.stop()
        self._control = tempfile.mkdtemp(prefix="jvm-", dir=os.path.dirname(self.starter.run_dir))
        self.scratch.keep(self._control)
        for name in ("out", "err"):
            os.mkfifo(os.path.join(self._control, name), 0o600)
        with open(os.path.join(self._control, "in"), "wb"):
            pass
        # the FIFOs are ours to read for the JVM's whole life (a run's end is their end of file)
        self._out = os.open(os.path.join(self._control, "out"), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        self._err = os.open(os.path.join(self._control, "err"), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        command_read, self._commands = os.pipe2(os.O_CLOEXEC)
        self._status, status_write = os.pipe2(os.O_CLOEXEC)
        null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        try:
            self.pid = self.starter.start(command_read, status_write, null, [self._control, self.classes, self.main])
            self._pidfd = os.pidfd_open(self.pid)
        finally:
            for fd in (command_read, status_write, null):
                os.close(fd)
        os.set_blocking(self._status, False)
        self._buffer = b""
        self.ready = False
        self.paused = False

    def pause(self) -> None:
        """Stop the JVM until its next run (nothing of the program runs meanwhile)."""
        if self.pid and not self.paused:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGSTOP)
            self.paused = True

    def _resume(self) -> None:
        if self.paused:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGCONT)
            self.paused = False

    def _await_ready(self) -> None:
        deadline = time.monotonic() + _READY_SECONDS
        while not self.ready:
            line = self._line(deadline)
            if line == "ready":
                self.ready = True
            else:
                self.cold = True  # this JVM cannot run the harness: every run gets a JVM of its own
                raise HarnessFailed(line or "no answer")

    def _line(self, deadline: float, on_wait: Callable[[], None] | None = None) -> str:
        """The harness's next line ("" when it died or did not answer before ``deadline``)."""
        while b"\n" not in self._buffer:
            if len(self._buffer) > _LINE_BYTES:
                return ""
            poller = select.poll()
            poller.register(self._status, select.POLLIN)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not poller.poll(remaining * 1000):
                return ""
            try:
                chunk = os.read(self._status, 4096)
            except BlockingIOError:
                continue
            if not chunk:
                return ""
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("ascii", "replace")

    def stop(self) -> None:
        """Kill the JVM (with everything of its process group) and forget its files."""
        if self.pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0
        for fd in (self._commands, self._status, self._pidfd, self._out, self._err):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._commands = self._status = self._pidfd = self._out = self._err = -1
        if self._control:
            for name in ("in", "out", "err"):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(self._control, name))
            with contextlib.suppress(OSError):
                os.rmdir(self._control)
            self.scratch.forget(self._control)
            self._control = ""
        self.paused = False

    def _strike(self) -> None:
        self.strikes += 1
        if self.strikes >= _STRIKES:
            self.cold = True
            self.stop()

    def cpu_seconds(self) -> float:
        """The JVM's CPU time so far (every thread; the kernel's clock of the process)."""
        try:
            return time.clock_gettime((~self.pid << 3) | 2)  # CPUCLOCK_SCHED of the whole process
        except OSError:
            return 0.0

    def _reset_peak(self) -> None:
        """The run's peak memory is counted from here (the cgroup's, else the JVM's own)."""
        if not self.group.reset_peak():
            with contextlib.suppress(OSError), open(f"/proc/{self.pid}/clear_refs", "wb") as handle:
                handle.write(b"5")  # the JVM's peak resident memory starts again from now

    def _peak_kb(self) -> int:
        """The run's peak memory: the cgroup's (reset before the run), else the JVM's own peak."""
        peak = self.group.peak_kb()
        if peak is not None:
            return peak
        with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{self.pid}/status", "rb") as handle:
            return int(handle.read().split(b"VmHWM:", 1)[1].split()[0])
        return 0

    # -- one run ----------------------------------------------------------------------------------

    def run(self, job: dict, patience: Callable[[float], float], kills: Callable[[], int]) -> dict:
        """One run in the warm JVM; HarnessFailed when it must run in a JVM of its own.
        ``patience`` is the launcher's (results waiting to be sent); ``kills`` reads the memory
        cgroup's kill count."""
        if not self.pid:
            self.start()
        self._resume()
        if not self.ready:
            self._await_ready()
        try:
            # never through a link a run left in its place
            fd = os.open(os.path.join(self._control, "in"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o600)
        except OSError:
            self._died()
        try:
            write_all(fd, job.get("stdin", b""))
        finally:
            os.close(fd)
        self._reset_peak()
        kills_before = kills()
        arguments = " ".join(os.fsencode(arg).hex() for arg in job.get("args", ()))
        started = time.monotonic()
        cpu_before = self.cpu_seconds()
        try:
            write_all(self._commands, f"run {arguments}".rstrip().encode() + b"\n")
        except OSError:
            self._died()
        verdict, code, discard, output = self._watch(started, cpu_before, patience)
        if kills() > kills_before:
            self._died()  # the cgroup killed a process of the JVM's: a JVM of its own says what the run does
        seconds = time.monotonic() - started
        cpu = self.cpu_seconds() - cpu_before if verdict != "cpu" else self._cpu_at_kill
        peak = self._peak_kb()
        self.runs += 1
        if verdict:
            self.stop()  # a run stopped for a limit takes its JVM with it
        elif discard:
            self.stop()
            self._strike()
        return classify(code << 8, "wall" if verdict == "wall" else "output" if verdict == "output" else "",
                        output, cpu, seconds, peak, self.limits)

    def _died(self) -> None:
        self.stop()
        self._strike()
        raise HarnessFailed("the JVM died")

    def _watch(self, started: float, cpu_before: float, patience: Callable[[float], float]) -> tuple[str, int, bool, Output]:
        limits = self.limits
        wall_end = started + float(limits["wall"])
        cpu_limit = float(limits["cpu"])
        output = Output(limits)
        poller = select.poll()
        poller.register(self._status, select.POLLIN)
        poller.register(self._pidfd, select.POLLIN)
        running = False
        ended: tuple[int, bool] | None = None
        open_fds: set[int] = set()
        next_check = started + _CPU_CHECK_SECONDS
        while ended is None or open_fds:
            now = time.monotonic()
            if now >= wall_end:
                return "wall", 0, False, output
            if now >= next_check:
                next_check = now + _CPU_CHECK_SECONDS
                if self.cpu_seconds() - cpu_before > cpu_limit:
                    self._cpu_at_kill = self.cpu_seconds() - cpu_before
                    return "cpu", 0, False, output
            wait = patience(min(wall_end, next_check) - now)
            events = dict(poller.poll(max(0.0, wait) * 1000))
            if self._pidfd in events:
                # the JVM ended: what it said before is still to be read
                poller.unregister(self._pidfd)
                events.setdefault(self._status, select.POLLIN)
            for fd in sorted(events, key=lambda fd: fd != self._status):
                if fd == self._pidfd:
                    if ended is None:
                        self._died()
                    continue
                if fd == self._status:
                    lines = self._lines(ended is not None)
                    if lines is None:  # the JVM closed its end after the run's: nothing more to say
                        poller.unregister(self._status)
                        continue
                    for line in lines:
                        if line == "started" and not running:
                            running = True
                            open_fds = {self._out, self._err}
                            for fifo in open_fds:
                                poller.register(fifo, select.POLLIN)
                        elif line.startswith("ended ") and running and ended is None:
                            ended = _ended(line)
                            if ended is None:
                                self.stop()
                                raise HarnessFailed("protocol")
                        else:
                            reason = line.removeprefix("cold ") if line.startswith("cold ") else "protocol"
                            self.stop()
                            if reason != "exec" and reason != "protocol":
                                self._strike()
                            if reason == "no-main":
                                self.cold = True
                            raise HarnessFailed(reason)
                    continue
                chunk = os.read(fd, _READ)
                if not chunk:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                elif fd == self._out:
                    if output.add_stdout(chunk):
                        return "output", 0, False, output
                else:
                    output.add_stderr(chunk)
        assert ended is not None
        return "", ended[0], ended[1], output

    def _lines(self, ended: bool) -> list[str] | None:
        """The whole lines the harness has written (HarnessFailed when it closed its end before
        the run ended, or wrote more than a line's worth without one)."""
        try:
            chunk = os.read(self._status, 4096)
        except BlockingIOError:
            chunk = None
        if chunk == b"":
            if not ended:
                self._died()
            return None
        if chunk:
            self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        if len(self._buffer) > _LINE_BYTES:
            self.stop()
            raise HarnessFailed("protocol")
        return [line.decode("ascii", "replace") for line in lines]


def _ended(line: str) -> tuple[int, bool] | None:
    """(exit status, discard) of an "ended STATUS FLAGS" line; None when malformed."""
    words = line.split(" ")
    if len(words) != 3 or not words[1].isdigit() or int(words[1]) > 255 or words[2] not in ("-", "discard"):
        return None
    return int(words[1]), words[2] == "discard"
