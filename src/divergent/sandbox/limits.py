"""The resource limits of sandboxed children, and the form in which a child receives them.

:class:`Limits` is what a caller chooses (``divergent.Limits``); :meth:`Limits.child_settings` is
the one payload every child of the sandbox gets when it starts (see
:mod:`divergent.sandbox.child.kit`), so a limit added here reaches the worker, the generator runner
and the symbolic runner alike. Limits that must come from outside the child (namespaces, the
process cap) are applied by :mod:`divergent.sandbox.isolation`.
"""

from __future__ import annotations

from dataclasses import dataclass

from divergent.errors import InvalidArgument


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed worker."""

    #: seconds a call may run before its outcome is a timeout (the in-worker timer; the parent
    #: kills the worker a grace period later). A search starts with a far smaller, adaptive limit
    #: (``first_timeout``) and re-runs an input past it only where it matters (see the search loop)
    timeout: float = 2.0
    #: the search's first per-call limit, before the calls' observed times scale it (never above
    #: ``timeout``): a slow input costs this much, not ``timeout``, until it is re-run
    first_timeout: float = 0.05
    #: a call that times out where another implementation returns is re-run with this many times
    #: the other's time (at least ``timeout``); past that it is a hang
    hang_factor: float = 100.0
    #: seconds for loading an implementation (its module's top-level code)
    load_timeout: float = 10.0
    memory_mb: int = 2048
    #: bytes of stdout kept per call
    stdout_bytes: int = 64 * 1024
    #: bytes of one encoded result; bigger results are replaced by a truncation marker
    result_bytes: int = 4 * 1024 * 1024
    recursion_limit: int = 10_000
    #: processes (and threads) a worker and its children may have at once (needs cgroups)
    max_processes: int = 64
    #: largest file the program may write
    file_bytes: int = 64 * 1024 * 1024
    #: room for all the files of one sandbox (its private /tmp, at the bubblewrap level)
    disk_mb: int = 256

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise InvalidArgument(f"timeout={self.timeout!r} must be > 0 seconds")
        if self.first_timeout <= 0:
            raise InvalidArgument(f"first_timeout={self.first_timeout!r} must be > 0 seconds")
        if self.hang_factor < 1:
            raise InvalidArgument(f"hang_factor={self.hang_factor!r} must be >= 1")
        if self.memory_mb < 64:
            raise InvalidArgument(f"memory_mb={self.memory_mb!r} must be at least 64")
        if self.disk_mb < 1:
            raise InvalidArgument(f"disk_mb={self.disk_mb!r} must be at least 1")

    @property
    def grace(self) -> float:
        """How long past the in-worker timer the parent waits before it kills the worker."""
        return self.grace_for(self.timeout)

    @staticmethod
    def grace_for(timeout: float) -> float:
        """The grace period past a per-call limit of ``timeout`` seconds."""
        return max(0.5, timeout * 0.5)

    def hang_limit(self, slowest_other: float) -> float:
        """The per-call limit past which a call is a hang, where another implementation took
        ``slowest_other`` seconds on the same input."""
        return max(self.timeout, self.hang_factor * slowest_other)

    def child_settings(self) -> dict[str, float | int]:
        """The limits a child applies itself, as it receives them when it starts (JSON types only)."""
        return {
            "timeout": self.timeout,
            "load_timeout": self.load_timeout,
            "memory_mb": self.memory_mb,
            "file_bytes": self.file_bytes,
            "stdout_bytes": self.stdout_bytes,
            "result_bytes": self.result_bytes,
            "recursion_limit": self.recursion_limit,
        }
