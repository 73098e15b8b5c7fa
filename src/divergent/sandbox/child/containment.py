"""A reused sandbox put back to a known state after each run (whole programs) or loaded version
(functions): what a run left behind is found from outside it, by containment, never by asking it.

* **Processes** (:class:`Leftovers`): once a run ended, any process but this one and its own
  helpers (the script zygote, a warm JVM) is a run's leftover, whoever its parent is (a
  ``clone(CLONE_PARENT)`` makes the zygote its parent, ``setsid`` leaves the run's group, a double
  fork orphans it: this process is a subreaper). In a sandbox whose PID namespace this process is
  the init of (a launcher at the ``bubblewrap`` and ``unshare`` levels), every process of the
  namespace is then killed at once (``kill(-1)`` from its init: the kernel lets no process fork
  past a pending ``SIGKILL``, so a process that re-clones itself cannot outrun it), the helpers with
  them: they are started again. Where there is no such namespace (``rlimits``) the leftovers are
  killed one by one: a process that re-forks faster than that may survive (docs/sandbox.md says so).
* **Files** (:class:`Scratch`): the directories a sandbox may write and keeps between runs (its
  ``/tmp`` and ``/dev/shm`` at the ``bubblewrap`` level, its working directory elsewhere) are put back
  as they were before any untrusted code ran: every entry added since is removed (never following a
  link, never into another mount, a directory a run made unreadable made readable first).

Standard library only, like every child module.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import stat
import time
from collections.abc import Collection, Sequence

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


# -- processes -------------------------------------------------------------------------------------


def namespace_init() -> bool:
    """Whether this process is the init of its PID namespace (then it sees and reaches every
    process of the sandbox, and nothing else)."""
    return os.getpid() == 1


def kill_all_but_me() -> None:
    """SIGKILL every process this one may signal but itself (in a PID namespace of its own: every
    process of the sandbox), and reap what ends. ``kill(-1)`` reaches them all at once; a bounded
    number of rounds (the process cap bounds what could appear in between)."""
    for _ in range(1000):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            break  # nothing left to signal
        reap()
        time.sleep(0.0005)
    reap()


def reap() -> bool:
    """Reap the children that ended; whether a child is still alive."""
    while True:
        try:
            child, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if child == 0:
            return True


class Leftovers:
    """The processes runs leave behind, found and killed from outside them (see the module).

    A leftover's ancestry ends in a child of this process (a subreaper: orphans come to it) or of a
    helper that forks runs (the script zygote: a ``clone(CLONE_PARENT)`` makes it the parent), so a
    look at those two lists of children says whether there is any: the zygote's first (only its
    children can add to its children), then this process's. Dead children are reaped first; a
    helper's dead child (a zombie) is harmless, and reaped by that helper."""

    def __init__(self) -> None:
        self.own_namespace = namespace_init()
        self.me = os.getpid()
        #: how many times the whole sandbox had to be cleared
        self.cleared = 0
        # this process's own list of children, read again from its start each time
        self._mine = os.open(f"/proc/{self.me}/task/{self.me}/children", os.O_RDONLY | os.O_CLOEXEC)

    def any(self, helpers: Collection[int], forking: Collection[int] = ()) -> bool:
        """Whether a run left a process alive (``forking``: the helpers whose children are runs)."""
        for helper in forking:
            if any(_state(child) != b"Z" for child in _children(helper)):
                return True
        if all(child in helpers for child in self._my_children()):
            return False
        reap()  # an orphan that ended is no leftover
        return any(child not in helpers for child in self._my_children())

    def _my_children(self) -> list[int]:
        try:
            return [int(word) for word in os.pread(self._mine, 1 << 16, 0).split()]
        except (OSError, ValueError):
            return _children(self.me)

    def clear(self, helpers: Collection[int], forking: Collection[int] = ()) -> bool:
        """Kill what runs left behind; True when the helpers were killed too (in a namespace of its
        own everything dies at once: the caller starts its helpers again)."""
        if not self.any(helpers, forking):
            return False
        if self.own_namespace:
            self.cleared += 1
            kill_all_but_me()
            return True
        for _ in range(100):
            found = set(_descendants(self.me)) - {self.me, *helpers}
            for helper in forking:
                found |= {child for child in _children(helper) if _state(child) != b"Z"}
            if not found:
                break
            for pid in found:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            reap()
            time.sleep(0.0005)
        return False


def _children(pid: int) -> list[int]:
    """The children of a single-threaded process (its one thread's)."""
    try:
        fd = os.open(f"/proc/{pid}/task/{pid}/children", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return []
    try:
        return [int(word) for word in os.read(fd, 1 << 16).split()]
    except (OSError, ValueError):
        return []
    finally:
        os.close(fd)


def _state(pid: int) -> bytes:
    """A process's state letter ("Z" for a zombie; "" when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return b""


def _descendants(root: int) -> list[int]:
    """Every descendant of ``root`` by parentage (each thread's children)."""
    found: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for thread in threads:
            try:
                with open(f"/proc/{pid}/task/{thread}/children", "rb") as handle:
                    children = [int(word) for word in handle.read().split()]
            except (OSError, ValueError):
                continue
            found += children
            todo += children
    return found


# -- files -----------------------------------------------------------------------------------------


class Scratch:
    """The writable directories a sandbox keeps between runs, and what they held at the start.

    Where the kernel allows it (``inotify``: a limited number of instances per user), the
    directories are watched: a reset that finds no event (nothing was added, moved in or removed
    since the last one) costs one read; otherwise every directory is listed."""

    #: IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
    _EVENTS = 0x100 | 0x80 | 0x40 | 0x400 | 0x800 | 0x01000000 | 0x02000000

    def __init__(self, roots: Sequence[str], *, watch: bool = False) -> None:
        #: each directory of the scratch file systems (not inside another mount) → the names it held
        self.baseline: dict[str, set[str]] = {}
        for root in roots:
            with contextlib.suppress(OSError):
                self._record(os.path.realpath(root))
        #: an inotify descriptor watching every directory of the baseline (-1: none, list them)
        self._events = _watch(list(self.baseline), self._EVENTS) if watch else -1
        self._poller = select.poll()
        if self._events >= 0:
            self._poller.register(self._events, select.POLLIN)
        self._dirty = True

    def _record(self, root: str) -> None:
        device = os.lstat(root).st_dev
        todo = [root]
        while todo:
            directory = todo.pop()
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            self.baseline[directory] = set(names)
            for name in names:
                path = os.path.join(directory, name)
                with contextlib.suppress(OSError):
                    info = os.lstat(path)
                    if stat.S_ISDIR(info.st_mode) and info.st_dev == device:
                        todo.append(path)

    def keep(self, path: str) -> None:
        """``path`` (a helper's own file or directory, made after the start) is not reset; what is
        inside a kept directory is its owner's to manage."""
        directory, name = os.path.split(os.path.realpath(path))
        if directory in self.baseline:
            self.baseline[directory].add(name)

    def forget(self, path: str) -> None:
        """``path`` is no longer kept (its owner removed it)."""
        directory, name = os.path.split(os.path.realpath(path))
        self.baseline.get(directory, set()).discard(name)

    def changed(self) -> bool:
        """Whether something may have been added since the last reset."""
        if self._events < 0:
            return True
        if self._poller.poll(0):
            self._dirty = True
            with contextlib.suppress(OSError):
                while os.read(self._events, 1 << 16):
                    pass
        return self._dirty

    def reset(self) -> int:
        """Remove every entry added since the start; how many there were."""
        if not self.changed():
            return 0
        self._dirty = False
        removed = 0
        for directory, names in self.baseline.items():
            try:
                fd = os.open(directory, _DIRECTORY)
            except OSError:
                # removed, or replaced by a file or a link: made again, empty (its own baseline
                # entries are gone with it)
                removed += self._restore(directory)
                continue
            try:
                present = os.listdir(fd)
            finally:
                os.close(fd)
            for name in present:
                if name not in names:
                    remove_entry(directory, name)
                    removed += 1
        return removed

    def _restore(self, directory: str) -> int:
        parent, name = os.path.split(directory)
        if os.path.lexists(directory):
            remove_entry(parent, name)
        try:
            os.mkdir(directory, 0o700)
        except OSError:
            return 0
        if self._events >= 0:
            added = _watch([directory], self._EVENTS, self._events)
            if added < 0:  # (_watch closed it)
                self._poller = select.poll()
                self._events = -1
        return 1


def _watch(directories: list[str], events: int, fd: int = -1) -> int:
    """An inotify descriptor (``fd``, else a new one) watching ``directories`` (-1 where the
    kernel refuses one)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if fd < 0:
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, AttributeError):
        return -1
    if fd < 0:
        return -1
    for directory in directories:
        if libc.inotify_add_watch(fd, os.fsencode(directory), events) < 0:
            os.close(fd)
            return -1
    return fd


def scratch_roots(settings: dict) -> list[str]:
    """The scratch directories a child was told of (``"."``: its working directory), resolved."""
    return [os.path.realpath(root) for root in settings.get("scratch", ())]


def safe_import_path(entries: Sequence[str], roots: Sequence[str]) -> list[str]:
    """``entries`` (a ``sys.path``) without the directories a run may write and a later one would
    import from: ``""`` (the working directory) and every writable directory inside the scratch
    ``roots`` (a program's directory bound read-only under ``/tmp`` stays). A module planted in
    ``/tmp`` then shadows nothing."""
    kept = []
    for entry in entries:
        if not entry:
            continue
        real = os.path.realpath(entry)
        if any(real == root or real.startswith(root.rstrip("/") + "/") for root in roots) and os.access(real, os.W_OK):
            continue
        kept.append(entry)
    return kept


def remove_entry(directory: str, name: str) -> None:
    """Remove ``directory/name`` and everything under it, without following a link or entering
    another mount; a directory a run made unreadable is made readable first. Iterative, with one
    descriptor open at a time: neither a deep nor a wide tree stops it."""
    try:
        top = os.open(directory, _DIRECTORY)
    except OSError:
        return
    try:
        device = os.fstat(top).st_dev
        if not _unlink(top, name):
            _remove_tree(top, name, device)
    finally:
        os.close(top)


def _unlink(fd: int, name: str) -> bool:
    """Remove a non-directory (True), or say it is a directory (False)."""
    try:
        info = os.lstat(name, dir_fd=fd)
    except OSError:
        return True
    if stat.S_ISDIR(info.st_mode):
        return False
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=fd)
    return True


def _remove_tree(top: int, name: str, device: int) -> None:
    fd = os.dup(top)
    # the directories being emptied, from ``name`` down: (its name in its parent, subdirectories left)
    stack: list[tuple[str, list[str]]] = []
    pending = [name]
    try:
        while True:
            if pending:
                child = pending.pop()
                with contextlib.suppress(OSError):
                    os.chmod(child, 0o700, dir_fd=fd)  # a directory (lstat said so); nothing else runs
                try:
                    opened = os.open(child, _DIRECTORY, dir_fd=fd)
                except OSError:
                    continue
                if os.fstat(opened).st_dev != device:
                    os.close(opened)  # a mount point (a bound directory): not ours to empty
                    continue
                stack.append((child, pending))
                os.close(fd)
                fd = opened
                pending = [entry for entry in _names(fd) if not _unlink(fd, entry)]
                continue
            if not stack:
                return
            child, pending = stack.pop()
            parent = os.open("..", _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = parent
            with contextlib.suppress(OSError):
                os.rmdir(child, dir_fd=fd)
    finally:
        os.close(fd)


def _names(fd: int) -> list[str]:
    try:
        with os.scandir(fd) as entries:
            return [entry.name for entry in entries]
    except OSError:
        return []


# -- the runs' cgroups -----------------------------------------------------------------------------


class RunGroup:
    """The runs' cgroups as a launcher holds them: descriptors divergent opened
    (:class:`divergent.sandbox.cgroups.RunCgroup`), -1 for those it could not make."""

    def __init__(self, wire: dict | None) -> None:
        wire = wire or {}
        self.procs, self.events, self.peak, self.cpu_procs, self.cpu_usage = (
            int(wire.get(name, -1)) for name in ("procs", "events", "peak", "cpu_procs", "cpu_usage"))

    @property
    def memory(self) -> bool:
        """Whether the runs have a memory cgroup (their family's memory counted together)."""
        return self.procs >= 0

    @property
    def joins(self) -> list[int]:
        """What a run's process joins first: the memory and the CPU cgroups."""
        return [fd for fd in (self.procs, self.cpu_procs) if fd >= 0]

    def kills(self) -> int:
        """How many processes the kernel has killed in the memory cgroup so far (0 without one)."""
        if self.events < 0:
            return 0
        try:
            text = os.pread(self.events, 4096, 0)
            return int(text.split(b"oom_kill ", 1)[1].split()[0])
        except (OSError, IndexError, ValueError):
            return 0

    def cpu_seconds(self) -> float | None:
        """The CPU time every process of the runs used so far (None without a CPU cgroup)."""
        if self.cpu_usage < 0:
            return None
        try:
            return int(os.pread(self.cpu_usage, 64, 0)) / 1e9
        except (OSError, ValueError):
            return None

    def reset_peak(self) -> bool:
        """Count the peak memory from now (False without a memory cgroup)."""
        if self.peak < 0:
            return False
        with contextlib.suppress(OSError):
            os.write(self.peak, b"0")
        return True

    def peak_kb(self) -> int | None:
        if self.peak < 0:
            return None
        try:
            return int(os.pread(self.peak, 64, 0)) // 1024
        except (OSError, ValueError):
            return None
