"""Per-sandbox cgroups (v1): a cap on the number of processes and on the memory of one sandbox.

Made before the sandbox starts (its first process joins them before it execs anything, so every
descendant is counted and killed with them), removed only once every process in them is gone:
a cgroup that is still busy is retried at the next start and when divergent exits, so none is
left behind; those of a divergent process that was killed (and could not clean up) are removed by
the next divergent process at its first sandbox.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterable
from pathlib import Path

from divergent.sandbox.limits import Limits

_CGROUP_ROOT = Path("/sys/fs/cgroup")


def process_cap() -> str:
    """What caps the number of processes (and the memory) of one sandbox here, in one line."""
    controllers = [name for name in ("pids", "memory") if os.access(_CGROUP_ROOT / name, os.W_OK)]
    if "pids" in controllers:
        return "cgroup v1 " + " and ".join(controllers) + " controllers, one cgroup per sandbox"
    if (_CGROUP_ROOT / "cgroup.controllers").exists():
        return "NONE: cgroup v2 is not supported yet; a fork bomb is only bounded by the kernel's limits"
    return "NONE: the cgroup controllers are not writable (run as root); a fork bomb is only bounded by RLIMIT_AS"


_PENDING_CGROUPS: list[Path] = []


_SWEPT = {"done": False}


def sweep_orphaned_cgroups() -> int:
    """Remove the cgroups that divergent processes which are gone left behind (killed with SIGKILL,
    they could not clean up), killing what still runs in them; how many were removed. Done once
    per process, at its first sandbox."""
    _SWEPT["done"] = True
    removed = 0
    for controller in ("pids", "memory"):
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


def make_cgroups(limits: Limits) -> list[Path]:
    """Per-sandbox v1 cgroups capping processes and memory (none where they are not writable)."""
    if not _SWEPT["done"]:
        sweep_orphaned_cgroups()
    made = []
    name = f"divergent-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    settings = {
        "pids": {"pids.max": str(limits.max_processes)},
        # every process's address space is capped by RLIMIT_AS; this caps them all together, with
        # the private /tmp (whose pages are memory) and some room for the interpreter
        "memory": {"memory.limit_in_bytes": str((limits.memory_mb + limits.disk_mb + 128) * 1024 * 1024)},
    }
    for controller, files in settings.items():
        root = _CGROUP_ROOT / controller
        if not os.access(root, os.W_OK):
            continue
        path = root / name
        try:
            path.mkdir()
            for file, value in files.items():
                (path / file).write_text(value)
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            continue
        made.append(path)
    return made


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
        if not _empty_and_remove(path, patience):
            _PENDING_CGROUPS.append(path)  # retried at the next start and when divergent exits


def retry_pending_cgroups(patience: float = 0.0) -> None:
    pending, _PENDING_CGROUPS[:] = list(_PENDING_CGROUPS), []
    for path in pending:
        if not _empty_and_remove(path, patience):
            _PENDING_CGROUPS.append(path)


atexit.register(retry_pending_cgroups, 3.0)
