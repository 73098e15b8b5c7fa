"""Which executor a run asks for (``--executor``, ``--address``, ``--jobs``), and opening it."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from divergent.errors import InvalidArgument
from divergent.executors.base import Executor, ThreadExecutor

__all__ = ["ExecutorKind", "ExecutorSettings", "choose_executor", "open_executor"]


class ExecutorKind(enum.StrEnum):
    #: threads on this machine, each driving its own sandboxed workers
    THREADS = "threads"
    #: Ray tasks on a cluster (the ``divergent[ray]`` extra), one per item
    RAY = "ray"


def choose_executor(executor: str, address: str | None = None) -> ExecutorKind:
    """The executor named ``executor``; an ``address`` only makes sense with Ray."""
    try:
        chosen = ExecutorKind(executor)
    except ValueError:
        raise InvalidArgument(f"--executor {executor!r}: choose threads or ray") from None
    if address is not None and chosen is not ExecutorKind.RAY:
        raise InvalidArgument(f"--address {address!r} needs --executor ray")
    return chosen


@dataclass(frozen=True)
class ExecutorSettings:
    """Where a run's items are worked on (the ``--executor``, ``--address`` and ``--jobs`` options)."""

    kind: ExecutorKind = ExecutorKind.THREADS
    #: Ray: the cluster (HOST:PORT, auto, ray://HOST:10001); None starts a local instance
    address: str | None = None
    #: items in flight at once; None: 1 on threads, the cluster's CPUs on Ray
    jobs: int | None = None

    def __post_init__(self) -> None:
        if self.jobs is not None and self.jobs < 1:
            raise InvalidArgument(f"--jobs {self.jobs}: need at least 1")
        if self.address is not None and self.kind is not ExecutorKind.RAY:
            raise InvalidArgument(f"--address {self.address!r} needs --executor ray")

    @classmethod
    def parse(cls, executor: str = "threads", address: str | None = None, jobs: int | None = None) -> ExecutorSettings:
        return cls(choose_executor(executor, address), address, jobs)

    def check(self) -> None:
        """Fail before anything is stored when the executor cannot run here (Ray missing, or no
        cluster answering at the address)."""
        if self.kind is ExecutorKind.RAY:
            from divergent.executors.ray_cluster import check_reachable, require_ray

            require_ray()
            check_reachable(self.address)


@contextmanager
def open_executor(settings: ExecutorSettings) -> Iterator[Executor]:
    """The executor ``settings`` ask for, ready (connected to the cluster) until the block ends."""
    if settings.kind is ExecutorKind.THREADS:
        yield ThreadExecutor(settings.jobs or 1)
        return
    from divergent.executors.ray_cluster import RayExecutor

    with RayExecutor(settings.address, settings.jobs) as executor:
        yield executor
