"""Starting untrusted processes with as much isolation as the machine offers.

Three levels, strongest first (``docs/sandbox.md`` states exactly what each guarantees):

``bubblewrap``
    ``bwrap`` (Debian package ``bubblewrap``): the whole file system read-only except the worker's
    own temporary directory, no network (new network namespace), a new PID namespace (every
    process the program starts dies with the worker, even one that calls ``setsid``), new IPC and
    UTS namespaces, all capabilities dropped, killed when divergent dies.
``unshare``
    util-linux ``unshare`` (as root): new network and PID namespaces, so no network and no
    surviving processes; the file system is *not* made read-only.
``rlimits``
    no namespaces: a process group per worker, resource limits, and a kill of the group (and of
    the worker's cgroup, when one could be made) when the worker is replaced. The network stays
    open and a process that leaves the group may survive; divergent says so in its output.

At every level: a scrubbed environment (no API keys or tokens; only a fixed allow-list of
variables), a fresh temporary working directory that is also ``HOME`` and ``TMPDIR``, limits on
address space, stack, file size and core dumps (set by the worker before it loads any untrusted
code), and, where ``/sys/fs/cgroup/pids`` is writable, a cap on the number of processes.
"""

from __future__ import annotations

import contextlib
import enum
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from divergent.errors import InvalidArgument, SandboxUnavailable
from divergent.sandbox.limits import Limits


class Isolation(enum.StrEnum):
    BUBBLEWRAP = "bubblewrap"
    UNSHARE = "unshare"
    RLIMITS = "rlimits"


#: what each level guarantees, shown to users in reports and ``divergent sandbox``
GUARANTEES: dict[Isolation, str] = {
    Isolation.BUBBLEWRAP: "read-only file system except a private temp dir, no network, "
    "child processes cannot outlive the worker, capabilities dropped",
    Isolation.UNSHARE: "no network, child processes cannot outlive the worker; "
    "file writes are NOT confined (install bubblewrap for that)",
    Isolation.RLIMITS: "process group and resource limits only: network open, file writes not "
    "confined, a process that leaves its group may survive (install bubblewrap, run as root)",
}

#: environment variables a worker may see; everything else (API keys, tokens) is dropped
_ALLOWED_ENV = ("LANG", "LC_ALL", "TZ")
_CGROUP_PIDS_ROOT = Path("/sys/fs/cgroup/pids")


@cache
def _can_run(argv: tuple[str, ...]) -> bool:
    try:
        result = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


def available_levels() -> tuple[Isolation, ...]:
    """The isolation levels that work on this machine, strongest first (probed once)."""
    levels = []
    bwrap = shutil.which("bwrap")
    if bwrap and _can_run(
        (bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid",
         "--die-with-parent", "--", "/bin/true")
    ):
        levels.append(Isolation.BUBBLEWRAP)
    unshare = shutil.which("unshare")
    if unshare and _can_run((unshare, "--net", "--pid", "--fork", "--kill-child", "/bin/true")):
        levels.append(Isolation.UNSHARE)
    levels.append(Isolation.RLIMITS)
    return tuple(levels)


def choose_level(requested: str | Isolation | None = None) -> Isolation:
    """The level to use: the strongest available, or the one requested (an error if unavailable).

    ``DIVERGENT_ISOLATION`` in the environment chooses when the caller does not.
    """
    requested = requested or os.environ.get("DIVERGENT_ISOLATION") or None
    levels = available_levels()
    if requested in (None, "auto"):
        return levels[0]
    try:
        level = Isolation(requested)
    except ValueError:
        choices = ", ".join(i.value for i in Isolation)
        raise InvalidArgument(f"isolation={requested!r}: choose from auto, {choices}") from None
    if level not in levels:
        raise SandboxUnavailable(
            f"isolation {level.value!r} is not available here (available: {', '.join(levels)}); "
            "install bubblewrap (apt-get install bubblewrap) or run as root for namespaces"
        )
    return level


def scrubbed_environment(workdir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment a worker sees: nothing from the parent but the allow-list."""
    env = {k: os.environ[k] for k in _ALLOWED_ENV if k in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        PATH="/usr/local/bin:/usr/bin:/bin",
        HOME=str(workdir),
        TMPDIR=str(workdir),
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


@dataclass
class IsolatedProcess:
    """A started, isolated process with its private working directory (and cgroup, if any)."""

    popen: subprocess.Popen[bytes]
    workdir: Path
    level: Isolation
    cgroup: Path | None = None
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

    def kill(self) -> None:
        """Kill the process and everything it started; remove its directory and cgroup."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.popen.kill()
        if self.cgroup is not None:
            _kill_cgroup(self.cgroup)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if self.cgroup is not None:
            with contextlib.suppress(OSError):
                self.cgroup.rmdir()
        shutil.rmtree(self.workdir, ignore_errors=True)


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


def _make_cgroup(max_processes: int) -> Path | None:
    """A pids cgroup capping the process count, or None where cgroups are not writable."""
    if not os.access(_CGROUP_PIDS_ROOT, os.W_OK):
        return None
    path = _CGROUP_PIDS_ROOT / f"divergent-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    try:
        path.mkdir()
        (path / "pids.max").write_text(str(max_processes))
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None
    return path


def _kill_cgroup(path: Path) -> None:
    for _ in range(20):
        try:
            pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def wrap_command(argv: list[str], level: Isolation, workdir: Path) -> list[str]:
    """The command line that runs ``argv`` under the given isolation level."""
    if level is Isolation.BUBBLEWRAP:
        return [
            "bwrap",
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--tmpfs", "/dev/shm",
            "--bind", str(workdir), str(workdir),
            "--chdir", str(workdir),
            "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--",
            *argv,
        ]  # fmt: skip
    if level is Isolation.UNSHARE:
        # A shell is PID 1 of the namespace: the program must not be PID 1, which ignores
        # signals without handlers (so a real SIGSEGV would look like a clean exit).
        return ["unshare", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child",
                "/bin/sh", "-c", '"$@"', "sh", *argv]  # fmt: skip
    return argv


def spawn(
    argv: list[str],
    *,
    limits: Limits,
    level: Isolation,
    extra_env: dict[str, str] | None = None,
    stderr_to: Path | None = None,
    read_only: Sequence[str] = (),
) -> IsolatedProcess:
    """Start ``argv`` isolated, with pipes on stdin and stdout, in a fresh working directory.

    The program must apply the resource limits itself before running untrusted code (the
    sandbox worker does); this function applies what must come from outside (namespaces, cgroup,
    environment, process group). ``read_only``: the paths the child must be able to read besides
    the interpreter and divergent (a whole program's binary and directory, the build cache, the
    toolchains: :attr:`divergent.sandbox.builds.BuiltProgram.read_only`). Every level here leaves
    the whole file system readable, so they are readable already; a level that binds only what is
    needed binds these.
    """
    del read_only  # readable at every level today (bubblewrap binds / read-only)
    workdir = Path(tempfile.mkdtemp(prefix="divergent-worker-"))
    workdir.chmod(0o777)
    cgroup = _make_cgroup(limits.max_processes)
    command = wrap_command(argv, level, workdir)
    if cgroup is not None:
        # Join the cgroup before exec, so every descendant is counted and killed with it.
        command = ["/bin/sh", "-c", f'echo $$ > {cgroup / "cgroup.procs"} && exec "$@"', "sh", *command]
    stderr = open(stderr_to, "wb") if stderr_to else subprocess.DEVNULL  # noqa: SIM115
    try:
        popen = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=workdir,
            env=scrubbed_environment(workdir, extra_env),
            start_new_session=True,
            close_fds=True,
        )
    except OSError as error:
        shutil.rmtree(workdir, ignore_errors=True)
        if cgroup is not None:
            with contextlib.suppress(OSError):
                cgroup.rmdir()
        raise SandboxUnavailable(f"cannot start a sandboxed process ({level.value}): {error}") from error
    finally:
        if stderr_to:
            stderr.close()  # type: ignore[union-attr]
    return IsolatedProcess(popen=popen, workdir=workdir, level=level, cgroup=cgroup)


def python_command(module: str, *args: str) -> list[str]:
    """Run a divergent module with this interpreter, importable whether installed or not."""
    package_root = str(Path(__file__).resolve().parents[2])
    bootstrap = (
        f"import sys; sys.path.insert(0, {package_root!r}); import runpy; "
        f"sys.argv = [{module!r}, *sys.argv[1:]]; runpy.run_module({module!r}, run_name='__main__')"
    )
    return [sys.executable, "-s", "-c", bootstrap, *args]
