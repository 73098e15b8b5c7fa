"""Starting untrusted processes with as much isolation as the machine offers.

Three levels, strongest first (``docs/sandbox.md`` states exactly what each guarantees, threat by
threat):

``bubblewrap``
    ``bwrap`` (Debian package ``bubblewrap``): a user namespace in which the program runs as an
    unprivileged user (uid 65534) with no capabilities and no way to make further user namespaces;
    a file system made of read-only binds of only what the interpreter and the programs need
    (``/usr``, the Python prefixes, the divergent package, each program's own directory, a few
    files of ``/etc``), a fresh ``/proc`` of its own PID namespace, a private size-capped ``/tmp``
    and nothing else: no host ``/tmp``, ``/run``, ``/var``, ``/home`` or ``/root``, so no host
    socket path is reachable. No network (a new network namespace), new IPC and UTS namespaces,
    killed when divergent dies.
``unshare``
    util-linux ``unshare`` with a user namespace, for users who are *not* root and have no
    bubblewrap: no network, a PID namespace with its own ``/proc``; the file system is the user's
    own (not confined). As root this level is refused: it would leave the host writable by root.
``rlimits``
    NOT A SANDBOX: resource limits and a process group only. The network is open and the files
    are the user's. Never chosen automatically as root; divergent says so loudly in its output.

At every level: a scrubbed environment (no API keys or tokens; only a fixed allow-list of
variables), limits on address space, stack, file size and core dumps, and a seccomp filter that
denies sockets, ``io_uring``, ``ptrace``, kernel keyrings, ``bpf`` and ``perf_event_open`` (both
set by the child itself, :mod:`divergent.sandbox.child.kit`, before it loads any untrusted code);
where cgroup v1 controllers are writable (root), a cap on the number of processes and on the
memory of the whole sandbox.
"""

from __future__ import annotations

import contextlib
import enum
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO

from divergent.errors import InvalidArgument, SandboxUnavailable
from divergent.sandbox.bubblewrap import (
    SANDBOX_TMP,
    bubblewrap_command,
    identity_files,
    package_root,
    program_paths,
    running_as_root,
)
from divergent.sandbox.cgroups import (
    CgroupsClosed,
    cgroup_pids,
    make_cgroups,
    process_cap,
    remove_cgroups,
    retry_pending_cgroups,
    run_cgroups,
)
from divergent.sandbox.limits import Limits
from divergent.trace import mark

__all__ = [
    "GUARANTEES",
    "IsolatedProcess",
    "Isolation",
    "LevelStatus",
    "Limits",
    "available_levels",
    "choose_level",
    "level_statuses",
    "process_cap",
    "program_paths",
    "python_command",
    "run_containment",
    "spawn",
]


class Isolation(enum.StrEnum):
    BUBBLEWRAP = "bubblewrap"
    UNSHARE = "unshare"
    RLIMITS = "rlimits"


#: what each level guarantees, shown to users in reports and ``divergent sandbox``
GUARANTEES: dict[Isolation, str] = {
    Isolation.BUBBLEWRAP: "unprivileged user in a user namespace, only the interpreter's and the programs' "
    "files readable (read-only), a private size-capped /tmp, no host sockets, no network, child processes "
    "cannot outlive the worker, socket system calls denied",
    Isolation.UNSHARE: "no network, own /proc, child processes cannot outlive the worker; files are NOT "
    "confined (the user's own; install bubblewrap for that); refused as root",
    Isolation.RLIMITS: "NOT A SANDBOX: resource limits only; the programs run with your privileges, can read "
    "and write your files and may leave processes behind (install bubblewrap: apt-get install bubblewrap)",
}

#: the size of the pipes to and from a sandboxed process
_PIPE_BYTES = 1 << 20
#: environment variables a worker may see; everything else (API keys, tokens) is dropped
_ALLOWED_ENV = ("LANG", "LC_ALL", "TZ")


# ---------------------------------------------------------------------------------------------
# Levels


@dataclass(frozen=True)
class LevelStatus:
    """Whether a level works here, and if not, why."""

    level: Isolation
    available: bool
    reason: str = ""


@cache
def _probe(argv: tuple[str, ...]) -> str:
    """"" when the command runs and exits 0 here, else why not (one line)."""
    try:
        result = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        return str(error)
    if result.returncode == 0:
        return ""
    return (result.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit code {result.returncode}"])[-1]


@cache
def level_statuses() -> tuple[LevelStatus, ...]:
    """Every level, whether it works on this machine and why not (probed once)."""
    statuses = []
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        statuses.append(LevelStatus(Isolation.BUBBLEWRAP, False, "bwrap is not installed"))
    else:
        problem = _probe(tuple(bubblewrap_command(["/bin/true"], disk_bytes=1 << 20, read_only=())))
        statuses.append(LevelStatus(Isolation.BUBBLEWRAP, not problem, f"bwrap fails here: {problem}" if problem else ""))
    if running_as_root():
        statuses.append(LevelStatus(
            Isolation.UNSHARE, False,
            "refused as root: it would leave the file system writable by root (install bubblewrap)",
        ))
    elif shutil.which("unshare") is None:
        statuses.append(LevelStatus(Isolation.UNSHARE, False, "unshare is not installed"))
    else:
        problem = _probe(tuple(unshare_command(["/bin/true"])))
        statuses.append(LevelStatus(Isolation.UNSHARE, not problem, f"user namespaces fail here: {problem}" if problem else ""))
    statuses.append(LevelStatus(
        Isolation.RLIMITS, True,
        "only when asked for by name (--isolation rlimits): divergent runs as root" if running_as_root() else "",
    ))
    return tuple(statuses)


def available_levels() -> tuple[Isolation, ...]:
    """The isolation levels that work on this machine, strongest first (probed once)."""
    return tuple(status.level for status in level_statuses() if status.available)


def _automatic_levels() -> tuple[Isolation, ...]:
    """The levels ``auto`` may pick: as root, never one that is not a sandbox."""
    levels = available_levels()
    if running_as_root():
        levels = tuple(level for level in levels if level is not Isolation.RLIMITS)
    return levels


def choose_level(requested: str | Isolation | None = None) -> Isolation:
    """The level to use: the strongest available, or the one requested (an error if unavailable).

    ``DIVERGENT_ISOLATION`` in the environment chooses when the caller does not. As root, ``auto``
    never falls back to ``rlimits`` (untrusted code would run as root): that needs asking by name.
    """
    requested = requested or os.environ.get("DIVERGENT_ISOLATION") or None
    if requested in (None, "auto"):
        levels = _automatic_levels()
        if not levels:
            raise SandboxUnavailable(
                "no sandbox is available and divergent runs as root: install bubblewrap "
                "(apt-get install bubblewrap, or make sandbox-tools), run as an ordinary user, or pass "
                "--isolation rlimits to run the programs unconfined, as root, at your own risk"
            )
        return levels[0]
    try:
        level = Isolation(requested)
    except ValueError:
        choices = ", ".join(i.value for i in Isolation)
        raise InvalidArgument(f"isolation={requested!r}: choose from auto, {choices}") from None
    statuses = {status.level: status for status in level_statuses()}
    if not statuses[level].available:
        raise SandboxUnavailable(
            f"isolation {level.value!r} is not available here ({statuses[level].reason}); available: "
            f"{', '.join(available_levels())}. Install bubblewrap (apt-get install bubblewrap) for the safe level"
        )
    return level


# ---------------------------------------------------------------------------------------------
# Environment and command lines


def scrubbed_environment(home: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment a worker sees: nothing from the parent but the allow-list."""
    env = {k: os.environ[k] for k in _ALLOWED_ENV if k in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        PATH="/usr/local/bin:/usr/bin:/bin",
        HOME=home,
        TMPDIR=home,
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONIOENCODING="utf-8",
        PYTHONNOUSERSITE="1",
        # Numeric libraries must not start thread pools that count against the process limit.
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    if extra:
        env.update(extra)
    return env


def unshare_command(argv: Sequence[str], *, as_pid_1: bool = False) -> list[str]:
    """The ``unshare`` command line (for users who are not root): a user namespace mapping the user
    to itself, no network, a PID namespace with its own /proc. ``as_pid_1``: see :func:`spawn`."""
    # By default a shell is PID 1 of the namespace: a program must not be PID 1, which ignores
    # signals without handlers (so a real SIGSEGV would look like a clean exit).
    script = 'exec "$@"' if as_pid_1 else '"$@"'
    return ["unshare", "--user", "--map-current-user", "--net", "--pid", "--ipc", "--uts", "--fork",
            "--kill-child", "--mount-proc", "/bin/sh", "-c", script, "sh", *argv]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Processes


@dataclass
class IsolatedProcess:
    """A started, isolated process, with its cgroups and its host working directory, if any."""

    popen: subprocess.Popen[bytes]
    level: Isolation
    #: the host directory of a process's files at the unshare and rlimits levels; None at the
    #: bubblewrap level, where the process's files live in its own tmpfs
    workdir: Path | None = None
    cgroups: list[Path] = field(default_factory=list)
    #: the process's stderr, when captured: an unlinked file only divergent holds open
    stderr_file: IO[bytes] | None = field(default=None, repr=False)
    _closed: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def exit_description(self) -> str:
        """How the process ended: "killed by signal SIGSEGV", "exit code 3", or "running"."""
        code = self.popen.poll()
        if code is None:
            return "running"
        return describe_exit(code, wrapped=self.level is not Isolation.RLIMITS)

    def stderr_tail(self, max_bytes: int = 2000) -> str:
        """The last ``max_bytes`` of what the process wrote to stderr ("" when not captured).

        Read from divergent's own descriptor, never by path: the program cannot put a FIFO or a
        link to /dev/zero in its place."""
        if self.stderr_file is None:
            return ""
        try:
            fd = self.stderr_file.fileno()
            size = os.fstat(fd).st_size
            data = os.pread(fd, max_bytes, max(0, size - max_bytes))
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", "replace")

    def signal_kill(self) -> None:
        """Send SIGKILL to the process and everything it started, without waiting: a caller
        closing many processes signals them all first, so they die together, then :meth:`kill`
        waits for each and cleans up."""
        if self._closed:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.popen.kill()
        for path in self.cgroups:
            for pid in cgroup_pids(path):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def kill(self) -> None:
        """Kill the process and everything it started; remove its cgroups and directory."""
        if self._closed:
            return
        self.signal_kill()
        self._closed = True
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)
        for stream in (self.popen.stdin, self.popen.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        remove_cgroups(self.cgroups)
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def close_stderr(self) -> None:
        if self.stderr_file is not None:
            with contextlib.suppress(OSError):
                self.stderr_file.close()
            self.stderr_file = None


def describe_exit(code: int, *, wrapped: bool) -> str:
    if code < 0:
        return f"killed by signal {_signal_name(-code)}"
    # bwrap and our shell init report a child killed by signal N as exit status 128 + N.
    if wrapped and 128 < code < 128 + 65:
        return f"killed by signal {_signal_name(code - 128)} (exit status {code})"
    return f"exit code {code}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _data_pipes(files: dict[str, bytes]) -> dict[str, int]:
    """A pipe per file, already holding its (small) content, read end open for the child."""
    fds = {}
    for destination, content in files.items():
        read_end, write_end = os.pipe()
        try:
            os.write(write_end, content)
        finally:
            os.close(write_end)
        fds[destination] = read_end
    return fds


def spawn(
    argv: list[str],
    *,
    limits: Limits,
    level: Isolation,
    extra_env: dict[str, str] | None = None,
    read_only: Sequence[str] = (),
    writable: Sequence[str] = (),
    capture_stderr: bool = False,
    pass_fds: Sequence[int] = (),
    as_pid_1: bool = False,
    narrow: bool = False,
) -> IsolatedProcess:
    """Start ``argv`` isolated, with pipes on stdin and stdout.

    ``read_only``: files and directories the program needs besides the interpreter's (its own
    directory, a build cache); at the bubblewrap level nothing else of the host is visible.
    ``writable``: host directories the program may write (made fresh for it by the caller, who
    reads back what is there as untrusted); at the other levels every file is writable anyway.
    ``capture_stderr``: keep what it writes on stderr for :meth:`IsolatedProcess.stderr_tail`
    (else it is discarded). ``pass_fds``: descriptors the process inherits (at the same numbers).
    ``as_pid_1``: the process is PID 1 of its PID namespace (bubblewrap and unshare), so nothing it
    starts can stop or kill it (the kernel drops such signals to a namespace's init unless it
    handles them); it must reap its orphans. ``narrow``: bind only the interpreter's prefixes,
    site-packages and divergent, not every ``sys.path`` entry of this process (whole programs).

    The program must apply the resource limits and the system-call filter itself before running
    untrusted code (every child built on :mod:`divergent.sandbox.child.kit` does); this function
    applies what must come from outside (namespaces, file system, cgroups, environment, session).
    """
    mark("spawn")
    retry_pending_cgroups()
    workdir: Path | None = None
    data_fds: dict[str, int] = {}
    if level is Isolation.BUBBLEWRAP:
        data_fds = _data_pipes(identity_files())
        home = SANDBOX_TMP
        command = bubblewrap_command(argv, disk_bytes=limits.disk_mb * 1024 * 1024, read_only=read_only,
                                     writable=writable, data_fds=data_fds, as_pid_1=as_pid_1, narrow=narrow)
    else:
        workdir = Path(tempfile.mkdtemp(prefix="divergent-worker-"))
        home = str(workdir)
        command = unshare_command(argv, as_pid_1=as_pid_1) if level is Isolation.UNSHARE else list(argv)
    try:
        cgroups = make_cgroups(limits)
    except CgroupsClosed as error:
        for fd in data_fds.values():
            os.close(fd)
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        raise SandboxUnavailable(f"cannot start a sandboxed process: {error}") from None
    if cgroups:
        # Join the cgroups before exec, so every descendant is counted and killed with them.
        joins = " && ".join(f"echo $$ > {path / 'cgroup.procs'}" for path in cgroups)
        command = ["/bin/sh", "-c", f'{joins} && exec "$@"', "sh", *command]
    stderr_file = tempfile.TemporaryFile(prefix="divergent-stderr-") if capture_stderr else None  # noqa: SIM115
    try:
        popen = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr_file if stderr_file is not None else subprocess.DEVNULL,
            cwd=workdir if workdir is not None else "/",
            env=scrubbed_environment(home, extra_env),
            start_new_session=True,
            close_fds=True,
            pass_fds=(*data_fds.values(), *pass_fds),
        )
    except OSError as error:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        remove_cgroups(cgroups, patience=0.0)
        if stderr_file is not None:
            stderr_file.close()
        raise SandboxUnavailable(f"cannot start a sandboxed process ({level.value}): {error}") from error
    finally:
        for fd in data_fds.values():
            os.close(fd)
    for stream in (popen.stdin, popen.stdout):
        # batches of inputs and results cross in one go rather than in 64 KiB turns
        with contextlib.suppress(OSError, AttributeError):
            fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)  # type: ignore[union-attr]
    mark("spawned")
    return IsolatedProcess(popen=popen, level=level, workdir=workdir, cgroups=cgroups, stderr_file=stderr_file)


def run_containment(level: Isolation) -> str:
    """How what a run (or a version loaded into a reused worker) leaves behind is found and removed
    at ``level``, in one line (docs/sandbox.md, "Warm runs")."""
    if level is Isolation.RLIMITS:
        return ("NOT CONTAINED: no PID namespace; leftovers are killed by parentage, and a process that re-forks "
                "faster than that may survive")
    groups = run_cgroups()
    counted = (f"each run in cgroups of its own ({', '.join(groups)}: counted for its whole family)" if groups
               else "no cgroup can be made here: a run's CPU time is its own processes' (the wall clock bounds the "
               "rest), memory per process")
    files = "/tmp and /dev/shm" if level is Isolation.BUBBLEWRAP else "the sandbox's working directory"
    return (f"after every run, every process of the sandbox's PID namespace but the launcher and its helpers is "
            f"killed, whoever started it; {files} put back as before any untrusted code ran; a warm JVM can start "
            f"no process (seccomp); {counted}")


def python_command(module: str, *args: str) -> list[str]:
    """Run a divergent module with this interpreter, importable whether installed or not."""
    root = package_root()
    bootstrap = (
        f"import sys; sys.path.insert(0, {root!r}); import runpy; "
        f"sys.argv = [{module!r}, *sys.argv[1:]]; runpy.run_module({module!r}, run_name='__main__')"
    )
    return [sys.executable, "-s", "-c", bootstrap, *args]
