"""Per-sandbox cgroups (v1): a cap on the number of processes and on the memory of one sandbox, and
a memory cgroup for the runs of a whole program (:class:`RunCgroup`).

Made before the sandbox starts (its first process joins them before it execs anything, so every
descendant is counted and killed with them), removed only once every process in them is gone:
a cgroup that is still busy is retried at the next start and when divergent exits. At exit,
divergent also kills and removes every cgroup of its own that nobody closed (a runner still
starting on a thread when the command ended), so a clean exit leaves none behind; those of a
divergent process that was killed (and could not clean up) are removed by the next divergent
process at its first sandbox.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from divergent.sandbox.limits import Limits

_CGROUP_ROOT = Path("/sys/fs/cgroup")


def run_cgroups() -> list[str]:
    """The controllers a whole program's runs get cgroups of their own in here (memory, CPU time,
    processes; none where they are not writable)."""
    names = {"memory": "memory", "cpuacct": "CPU time"}
    return [label for name, label in names.items() if os.access(_CGROUP_ROOT / name, os.W_OK)]


def process_cap() -> str:
    """What caps the number of processes (and the memory) of one sandbox here, in one line."""
    controllers = [name for name in ("pids", "memory") if os.access(_CGROUP_ROOT / name, os.W_OK)]
    if "pids" in controllers:
        return "cgroup v1 " + " and ".join(controllers) + " controllers, one cgroup per sandbox"
    if (_CGROUP_ROOT / "cgroup.controllers").exists():
        return "NONE: cgroup v2 is not supported yet; a fork bomb is only bounded by the kernel's limits"
    return "NONE: the cgroup controllers are not writable (run as root); a fork bomb is only bounded by RLIMIT_AS"


#: the v1 controllers divergent makes cgroups in
_CONTROLLERS = ("pids", "memory", "cpuacct")
_PENDING_CGROUPS: list[Path] = []
#: every cgroup this process made and has not removed yet (killed and removed at exit)
_LIVE: set[Path] = set()
_LIVE_LOCK = threading.Lock()
#: set when divergent exits: no cgroup is made after its cgroups were swept
_EXITING = {"now": False}


_SWEPT = {"done": False}


class CgroupsClosed(OSError):
    """divergent is exiting: no new sandbox may be started (it would outlive the cleanup)."""


def sweep_orphaned_cgroups() -> int:
    """Remove the cgroups that divergent processes which are gone left behind (killed with SIGKILL,
    they could not clean up), killing what still runs in them; how many were removed. Done once
    per process, at its first sandbox."""
    _SWEPT["done"] = True
    removed = 0
    for controller in _CONTROLLERS:
        root = _CGROUP_ROOT / controller
        if not os.access(root, os.W_OK):
            continue
        for path in root.glob("divergent-*-*"):
            owner = path.name.split("-")[1]
            if not owner.isdigit() or _alive(int(owner)):
                continue
            removed += _empty_and_remove(path, 0.5)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _cgroup_name() -> str:
    return f"divergent-{os.getpid()}-{uuid.uuid4().hex[:12]}"


def _make(controller: str, name: str, files: dict[str, str]) -> Path | None:
    """One v1 cgroup with its settings, registered as live (None where it cannot be made)."""
    root = _CGROUP_ROOT / controller
    if not os.access(root, os.W_OK):
        return None
    path = root / name
    with _LIVE_LOCK:
        if _EXITING["now"]:
            raise CgroupsClosed("divergent is exiting")
        try:
            path.mkdir()
        except OSError:
            return None
        _LIVE.add(path)
    try:
        for file, value in files.items():
            (path / file).write_text(value)
    except OSError:
        remove_cgroups([path], patience=0.0)
        return None
    return path


def make_cgroups(limits: Limits) -> list[Path]:
    """Per-sandbox v1 cgroups capping processes and memory (none where they are not writable)."""
    if not _SWEPT["done"]:
        sweep_orphaned_cgroups()
    name = _cgroup_name()
    settings = {
        "pids": {"pids.max": str(limits.max_processes)},
        # every process's address space is capped by RLIMIT_AS; this caps them all together, with
        # the private /tmp (whose pages are memory) and some room for the interpreter
        "memory": {"memory.limit_in_bytes": str((limits.memory_mb + limits.disk_mb + 128) * 1024 * 1024)},
    }
    made = []
    for controller, files in settings.items():
        path = _make(controller, name, files)
        if path is not None:
            made.append(path)
    return made


@dataclass
class RunCgroup:
    """The cgroups of the runs of one whole program: a memory cgroup, in which every process of a
    run (its whole family, a JVM's heap and native memory, the files it writes in the sandbox's
    tmpfs) counts against one limit, and a ``cpuacct`` cgroup, which counts the CPU time of a run's
    whole family (where that controller is writable). The launcher moves each run into them through
    descriptors divergent opened (the sandbox needs no cgroup file system) and reads through theirs
    the kernel's count of processes it killed for memory, the highest memory usage (reset before
    each run) and the CPU time used. All are closed in a run's process before the program starts."""

    path: Path
    procs: int
    events: int
    peak: int
    #: the ``cpuacct`` cgroup: ``cgroup.procs`` and ``cpuacct.usage``
    cpu_path: Path | None = None
    cpu_procs: int = -1
    cpu_usage: int = -1
    _closed: bool = field(default=False, repr=False)

    @property
    def fds(self) -> tuple[int, ...]:
        return tuple(fd for fd in (self.procs, self.events, self.peak, self.cpu_procs, self.cpu_usage) if fd >= 0)

    @property
    def paths(self) -> list[Path]:
        return [path for path in (self.path, self.cpu_path) if path is not None]

    def wire(self) -> dict[str, int]:
        """The descriptors as the launcher receives them (-1: none)."""
        return {"procs": self.procs, "events": self.events, "peak": self.peak, "cpu_procs": self.cpu_procs,
                "cpu_usage": self.cpu_usage}

    def close_fds(self) -> None:
        """Close divergent's copies (once the sandbox holds its own)."""
        if not self._closed:
            self._closed = True
            for fd in self.fds:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def remove(self) -> None:
        self.close_fds()
        remove_cgroups(self.paths)


def make_run_cgroup(memory_bytes: int) -> RunCgroup | None:
    """The cgroups for the runs of one program, with a memory limit of ``memory_bytes`` (None where
    memory cgroups are not writable, or the kernel does not count their kills; the CPU cgroup is
    left out where ``cpuacct`` is not writable)."""
    if not _SWEPT["done"]:
        sweep_orphaned_cgroups()
    name = _cgroup_name() + "-run"
    path = _make("memory", name, {
        "memory.limit_in_bytes": str(memory_bytes),
        # no swap: a run's memory is its memory (the files fail where swap accounting is off)
    })
    if path is None:
        return None
    with contextlib.suppress(OSError):
        (path / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
    fds: list[int] = []
    try:
        for file, flags in (("cgroup.procs", os.O_WRONLY), ("memory.oom_control", os.O_RDONLY),
                            ("memory.max_usage_in_bytes", os.O_RDWR)):
            fds.append(os.open(path / file, flags | os.O_CLOEXEC))
        if b"oom_kill " not in os.pread(fds[1], 4096, 0):
            raise OSError("this kernel does not count a memory cgroup's kills")
    except OSError:
        for fd in fds:
            os.close(fd)
        remove_cgroups([path], patience=0.0)
        return None
    group = RunCgroup(path, *fds)
    cpu = _open_cgroup("cpuacct", name, {}, "cpuacct.usage")
    if cpu is not None:
        group.cpu_path, group.cpu_procs, group.cpu_usage = cpu
    return group


def _open_cgroup(controller: str, name: str, settings: dict[str, str], reading: str) -> tuple[Path, int, int] | None:
    """A cgroup, its ``cgroup.procs`` open to write and ``reading`` to read (None where it cannot be made)."""
    path = _make(controller, name, settings)
    if path is None:
        return None
    fds: list[int] = []
    try:
        for file, flags in (("cgroup.procs", os.O_WRONLY), (reading, os.O_RDONLY)):
            fds.append(os.open(path / file, flags | os.O_CLOEXEC))
    except OSError:
        for fd in fds:
            os.close(fd)
        remove_cgroups([path], patience=0.0)
        return None
    return path, fds[0], fds[1]


def cgroup_pids(path: Path) -> list[int]:
    try:
        return [int(p) for p in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _empty_and_remove(path: Path, patience: float) -> bool:
    """Kill everything in a cgroup, wait (up to ``patience`` s) until it is empty, remove it."""
    deadline = time.monotonic() + patience
    pause = 0.001
    while True:
        pids = cgroup_pids(path)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if not pids:
            try:
                path.rmdir()
                return True
            except FileNotFoundError:
                return True
            except OSError:
                pass  # exiting processes still count: try again in a moment
        if time.monotonic() > deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def remove_cgroups(paths: Iterable[Path], patience: float = 2.0) -> None:
    for path in paths:
        if _empty_and_remove(path, patience):
            with _LIVE_LOCK:
                _LIVE.discard(path)
        else:
            _PENDING_CGROUPS.append(path)  # retried at the next start and when divergent exits


def retry_pending_cgroups(patience: float = 0.0) -> None:
    pending, _PENDING_CGROUPS[:] = list(_PENDING_CGROUPS), []
    for path in pending:
        if _empty_and_remove(path, patience):
            with _LIVE_LOCK:
                _LIVE.discard(path)
        else:
            _PENDING_CGROUPS.append(path)


def remove_all_cgroups(patience: float = 3.0) -> None:
    """At exit: kill and remove every cgroup this process made, closed or not (a sandbox nobody
    closed, e.g. a runner still starting on a thread, dies with it), and make no more."""
    with _LIVE_LOCK:
        _EXITING["now"] = True
        # only this process's own (a forked child that runs atexit must not take its parent's)
        live = [path for path in _LIVE if path.name.startswith(f"divergent-{os.getpid()}-")]
    _PENDING_CGROUPS[:] = []
    remove_cgroups(live, patience)


atexit.register(remove_all_cgroups)
