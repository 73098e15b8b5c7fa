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

    #: seconds per call (the in-worker timer; the parent kills the worker a grace period later)
    timeout: float = 2.0
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
        if self.memory_mb < 64:
            raise InvalidArgument(f"memory_mb={self.memory_mb!r} must be at least 64")
        if self.disk_mb < 1:
            raise InvalidArgument(f"disk_mb={self.disk_mb!r} must be at least 1")

    @property
    def grace(self) -> float:
        """How long past the in-worker timer the parent waits before it kills the worker."""
        return max(0.5, self.timeout * 0.5)

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
