"""The launcher: runs one whole program once per input, inside the sandbox, with limits from outside.

A compiled binary cannot be trusted to limit itself, so the limits are set here, in the forked
process, before ``exec``: CPU seconds, address space, a 256 MiB stack, file size, no core dumps,
processes; the launcher kills the run's process group at twice the CPU limit of wall clock, or as
soon as it writes more than the output cap. It reports how the run ended (exit code or signal, CPU
and wall seconds, peak memory from ``wait4``), what it printed (bounded; never parsed, only
counted), and the ends of its stderr. One launcher serves one program for a whole search (the
sandbox is started once, not per input); Python scripts are compiled once and run from a fork of
a lean interpreter (the script zygote) as ``__main__`` (the interpreter starts once) unless a
fresh interpreter is asked for.

Started by :mod:`divergent.sandbox.process_runner` (``launcher LIMITS``); speaks the kit's protocol
(:mod:`.kit`). Like every child it imports only the standard library and the kit. Commands::

    ("setup", {"mode": "exec" | "python" | "java", "argv": [...], "script": path, "limits": {...},
               "spawner": path | None, "java": {...} | None})
        → {"ok": true, "spawner": bool} | {"ok": false, "error": "..."}
    ("run", {"jobs": [{"stdin": bytes, "args": [...], "files": {name: bytes}, "keep": bool}],
             "indices": [...], "deadline": seconds | None})
        → one {"i": index, "r": result} per job, then {"done": true, "stopped": bool}

``limits``: ``cpu`` and ``wall`` seconds, ``memory`` (bytes of address space, 0: none; Java's JVM
limits its own heap), ``memory_limit`` (bytes, to recognise a run past its memory), ``stack``,
``file``, ``output`` (the stdout cap, bytes), ``stderr`` (bytes kept of each end), ``processes``
(the ``RLIMIT_NPROC`` of a run: what the user runs already plus the run's share; 0: none).

A result: ``k`` (kind: ok, runtime-error, timeout, memory-limit, output-limit), ``o`` (stdout, as
text: invalid UTF-8 shown as ``\\xNN``), ``x`` (exit code or None), ``g`` (signal name or None), ``c``
(CPU seconds), ``w`` (wall seconds), ``m`` (peak resident KiB), ``e`` (stderr, its head and tail),
``d`` (what happened, for failures).

Each run has its own process group and a fresh ``run/`` working directory (emptied after the run
unless ``keep``). After every run the sandbox is put back as it was (:mod:`.containment`): every
process but the launcher and its own helpers (the script zygote, a warm JVM) is a leftover of the
run, whoever its parent is, and is killed (in the sandbox's PID namespace, whose init the launcher
is, all at once, the helpers with them: they start again); whatever was added to the sandbox's
``/tmp`` and ``/dev/shm`` is removed. A run's process is started by :mod:`.spawn` (the spawn helper
where one was built, else a fork; a Python script's, by a fork of the script zygote,
:mod:`.zygote`); a Java program's runs go to a warm JVM (:mod:`.warm_jvm`) unless it cannot vouch
for one, which is then run in a JVM of its own. The warm JVM can start threads but no process (a
system-call filter installed before its first instruction), and is stopped between batches.

Results are sent as they come, a few together when runs are quick (:data:`_FLUSH_SECONDS`): the
parent's side wakes once for several.

The launcher cannot be taken over by what it runs: it is non-dumpable (a run can neither open its
``/proc/PID/mem`` or ``/proc/PID/fd`` nor take a descriptor with ``pidfd_getfd`` nor read it with
``process_vm_readv``; ``ptrace`` is denied by the filter besides), it is PID 1 of the sandbox's PID
namespace where the sandbox gives one (the kernel drops a signal from inside the namespace to its
init unless the init handles it, and the launcher handles none: a run can neither stop nor kill
it), and a run's process closes every descriptor but 0, 1 and 2 before the program starts.

Where divergent could make them, the settings name the runs' cgroups (``run_cgroup``: descriptors
divergent opened, :class:`.containment.RunGroup`): a memory cgroup of the run limit and a CPU
(``cpuacct``) cgroup. Each run's process joins them before anything else, so the run's whole family
(forks, a JVM's native memory, files in the tmpfs) counts against the memory limit, a run in which
the kernel killed a process for memory is ``memory-limit``, and the CPU time of a run is that of its
whole family (a run whose processes together pass the CPU limit is stopped: ``timeout``).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import select
import shutil
import signal
import sys
import time

from divergent.sandbox.child.containment import Leftovers, RunGroup, Scratch
from divergent.sandbox.child.kit import Channel, forbid_inspection, start_child
from divergent.sandbox.child.runs import Output, classify, memory_killed, stdin_of, write_file
from divergent.sandbox.child.spawn import Starter, ZygoteStarter
from divergent.sandbox.child.warm_jvm import HarnessFailed, WarmJvm

_READ = 1 << 16
_PR_SET_CHILD_SUBREAPER = 36
_RUN_DIR = "run"
#: results wait at most this long to be sent together with the next ones
_FLUSH_SECONDS = 0.005
#: how often the CPU time of a run's whole family is looked at, once it could be past the limit
_CPU_CHECK_SECONDS = 0.05


def _set_subreaper() -> None:
    """Orphans of a run become the launcher's children, so they can be found and killed."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


class Launcher:
    def __init__(self, channel: Channel, run_cgroup: dict | None = None, scratch: list[str] | None = None) -> None:
        self.channel = channel
        #: the runs' cgroups (descriptors divergent opened; none where it could not make them)
        self.group = RunGroup(run_cgroup)
        self.mode = ""
        self.limits: dict = {}
        self.starter: Starter | ZygoteStarter | None = None
        #: a Java program's warm JVM (None: every run in a JVM of its own)
        self.jvm: WarmJvm | None = None
        self.run_dir = os.path.abspath(_RUN_DIR)
        os.makedirs(self.run_dir, exist_ok=True)
        self.environment = dict(os.environ)
        # The directory divergent's own package was put on sys.path from: a script must not see it.
        here = os.path.dirname(os.path.abspath(__file__))
        self.package_root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
        #: what runs leave behind: processes, and files in the sandbox's scratch directories (as
        #: they are now, before any untrusted code ran)
        self.leftovers = Leftovers()
        self.scratch = Scratch(scratch or [], watch=True)
        #: the memory cgroup's kill count after the last run
        self.kills = self.group.kills()
        self._pending: list[dict] = []
        self._pending_since = 0.0
        self._cores = max(1, len(os.sched_getaffinity(0)))

    # -- commands ---------------------------------------------------------------------------------

    def serve(self) -> None:
        while True:
            message = self.channel.receive()
            if message is None:
                return
            command, payload = message
            if command == "setup":
                self.setup(payload)
                gc.freeze()  # what the launcher holds now stays shared with every run's fork
            elif command == "run":
                self.run(payload)
            elif command == "ping":
                self.channel.send({"ok": True})
            else:
                self.channel.send({"ok": False, "error": f"unknown command {command!r}"})

    def setup(self, payload: dict) -> None:
        if payload.get("run_dir"):
            # a directory of the host's, bound writable for this launcher (a build's output)
            self.run_dir = payload["run_dir"]
            os.makedirs(self.run_dir, exist_ok=True)
        self.mode = payload["mode"]
        argv = list(payload.get("argv", ()))
        self.limits = dict(payload["limits"])
        if self.mode == "python":
            script = payload.get("script", "")
            if not os.path.isfile(script):
                self.channel.send({"ok": False, "error": f"no script at {script}"})
                return
            self.starter = ZygoteStarter(script, self.run_dir, self.limits, self.group.joins, self.package_root,
                                         helper=payload.get("spawner"))
        elif self.mode in ("exec", "java"):
            if not argv or not os.access(argv[0], os.X_OK):
                self.channel.send({"ok": False, "error": f"cannot execute {argv[:1]}"})
                return
            self.starter = Starter(argv, self.environment, self.run_dir, self.limits, self.group.joins,
                                   helper=payload.get("spawner"))
            if self.mode == "java" and payload.get("java"):
                # the runs go to a warm JVM; ``argv`` (a JVM per run) takes those it cannot vouch for
                self.jvm = WarmJvm(payload["java"], self.limits, self.environment, self.run_dir, self.group,
                                   payload.get("spawner"), self.scratch)
                self.jvm.start()
        else:
            self.channel.send({"ok": False, "error": f"unknown mode {self.mode!r}"})
            return
        self.starter.on_full = self._clear_processes
        self.channel.send({"ok": True, "spawner": self.starter.helped})

    def run(self, payload: dict) -> None:
        deadline = payload.get("deadline")
        stop_at = None if deadline is None else time.monotonic() + float(deadline)
        stopped = False
        for index, job in zip(payload["indices"], payload["jobs"], strict=True):
            if stop_at is not None and time.monotonic() >= stop_at:
                stopped = True
                break
            self._report({"i": index, "r": self.run_one(job)})
        if self.jvm is not None:
            self.jvm.pause()  # nothing of the program runs while the launcher waits for the next batch
        self._pending.append({"done": True, "stopped": stopped})
        self._flush()

    def _report(self, frame: dict) -> None:
        """Send ``frame`` now, or with the next ones when the last were sent a moment ago."""
        now = time.monotonic()
        if not self._pending:
            self._pending_since = now
        self._pending.append(frame)
        if now - self._pending_since >= _FLUSH_SECONDS or len(self._pending) >= 64:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            frames, self._pending = self._pending, []
            self.channel.send_all(frames)

    def patience(self, seconds: float) -> float:
        """How long a run's watch may wait now: ``seconds``, or less when results wait to be sent
        (they are sent then: a slow run never holds back the results before it)."""
        if not self._pending:
            return seconds
        due = self._pending_since + _FLUSH_SECONDS - time.monotonic()
        if due <= 0:
            self._flush()
            return seconds
        return min(seconds, due)

    # -- one run ----------------------------------------------------------------------------------

    def run_one(self, job: dict) -> dict:
        for name, data in (job.get("files") or {}).items():
            write_file(self.run_dir, name, data)
        try:
            if self.jvm is not None and not self.jvm.cold:
                try:
                    return self.jvm.run(job, self.patience, self.group.kills)
                except HarnessFailed:
                    pass  # this input runs in a JVM of its own
                finally:
                    self._clear_processes()
                    self.kills = self.group.kills()  # what the JVM's cgroup killed is no later run's
                self.scratch.reset()
                if self.run_dir not in self.scratch.baseline:
                    self._empty_run_dir()
                for name, data in (job.get("files") or {}).items():
                    write_file(self.run_dir, name, data)
            return self._run_process(job)  # which leaves no process of the run behind
        finally:
            # the sandbox's files as they were before the run (its run directory among them)
            self.scratch.reset()
            if not job.get("keep") and self.run_dir not in self.scratch.baseline:
                self._empty_run_dir()

    def _run_process(self, job: dict) -> dict:
        """One run in a process of its own: started, watched, swept away with everything it
        started, and classified."""
        limits = self.limits
        assert self.starter is not None
        stdin = stdin_of(job.get("stdin", b""))
        out_read, out_write = os.pipe2(os.O_CLOEXEC)
        err_read, err_write = os.pipe2(os.O_CLOEXEC)
        cpu_before = self.group.cpu_seconds()
        started = time.monotonic()
        try:
            pid = self.starter.start(stdin, out_write, err_write, list(job.get("args", ())))
        finally:
            os.close(out_write)
            os.close(err_write)
            os.close(stdin)
        try:
            verdict, output = self._watch(pid, out_read, err_read, started, cpu_before, limits)
            status, cpu, peak_kb = self.starter.wait(pid)
            seconds = time.monotonic() - started
        finally:
            os.close(out_read)
            os.close(err_read)
        # what the run started dies before its time is counted: the CPU time of the whole family
        self._clear_processes()
        if cpu_before is not None:
            cpu = max(cpu, (self.group.cpu_seconds() or 0.0) - cpu_before)
        result = classify(status, verdict, output, cpu, seconds, peak_kb, limits)
        kills = self.group.kills()
        if kills > self.kills:
            self.kills = kills
            memory_killed(result, limits)
        return result

    def _watch(self, pid: int, out_read: int, err_read: int, started: float, cpu_before: float | None,
               limits: dict) -> tuple[str, Output]:
        """Read the run's output until it ended (its verdict when the launcher stopped it: "output",
        "wall", or "cpu" when its processes together passed the CPU limit), then kill its group."""
        wall = float(limits["wall"])
        cpu_limit = float(limits["cpu"])
        output = Output(limits)
        verdict = ""
        pidfd = os.pidfd_open(pid)
        poller = select.poll()
        open_fds = {out_read, err_read}
        for fd in open_fds:
            poller.register(fd, select.POLLIN)
        poller.register(pidfd, select.POLLIN)
        exited = False
        # the family's CPU time can pass the limit once this much wall clock has gone by
        next_check = None if cpu_before is None else started + cpu_limit / self._cores
        try:
            while open_fds or not exited:
                now = time.monotonic()
                remaining = started + wall - now
                if remaining <= 0:
                    verdict = "wall"
                    break
                if next_check is not None and now >= next_check:
                    next_check = now + _CPU_CHECK_SECONDS
                    if (self.group.cpu_seconds() or 0.0) - cpu_before > cpu_limit:  # type: ignore[operator]
                        verdict = "cpu"
                        break
                wait = remaining if next_check is None else min(remaining, max(0.0, next_check - now))
                for fd, _event in poller.poll(self.patience(wait) * 1000):
                    if fd == pidfd:
                        exited = True
                        poller.unregister(pidfd)
                        continue
                    chunk = os.read(fd, _READ)
                    if not chunk:
                        poller.unregister(fd)
                        open_fds.discard(fd)
                    elif fd == out_read:
                        if output.add_stdout(chunk):
                            verdict = "output"
                    else:
                        output.add_stderr(chunk)
                if verdict:
                    break
                if exited and open_fds:
                    # The program ended but something it started holds its pipes: give that a
                    # moment to finish writing, then it dies with the run's process group.
                    self._drain_after_exit(poller, open_fds, out_read, output, started + wall)
                    if output.past_cap:
                        verdict = "output"
                    break
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            os.close(pidfd)
        return verdict, output

    @staticmethod
    def _drain_after_exit(poller: select.poll, open_fds: set[int], out_read: int, output: Output,
                          wall_end: float) -> None:
        until = min(wall_end, time.monotonic() + 0.05)
        while open_fds and time.monotonic() < until and not output.past_cap:
            for fd, _event in poller.poll(max(0.0, until - time.monotonic()) * 1000):
                chunk = os.read(fd, _READ)
                if not chunk:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                elif fd == out_read:
                    output.add_stdout(chunk)
                else:
                    output.add_stderr(chunk)

    def _helpers(self) -> set[int]:
        """The launcher's own long-lived children (the script zygote, a warm JVM), never a run's
        leftovers."""
        helpers = {self.starter.pid} if isinstance(self.starter, ZygoteStarter) and self.starter.pid else set()
        if self.jvm is not None and self.jvm.pid:
            helpers.add(self.jvm.pid)
        return helpers

    def _clear_processes(self) -> None:
        """Kill every process a run left behind; when that took the helpers too, they start again
        (the zygote at the next run, the JVM when it is next needed)."""
        forking = [self.starter.pid] if isinstance(self.starter, ZygoteStarter) and self.starter.pid else []
        if self.leftovers.clear(self._helpers(), forking):
            if isinstance(self.starter, ZygoteStarter):
                self.starter.close()
            if self.jvm is not None:
                self.jvm.stop()
            self.kills = self.group.kills()  # what the sweep killed is no later run's

    def _empty_run_dir(self) -> None:
        try:
            entries = os.listdir(self.run_dir)
        except OSError:
            entries = []
        for entry in entries:
            path = os.path.join(self.run_dir, entry)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)


def main() -> None:
    channel, settings, _ = start_child()
    forbid_inspection()
    _set_subreaper()
    # fd 0 is /dev/null here and becomes a run's input in its fork: a stream that never closes it
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    Launcher(channel, settings.get("run_cgroup"), settings.get("scratch")).serve()
    os._exit(0)


if __name__ == "__main__":
    main()
