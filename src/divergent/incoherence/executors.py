"""Running incoherence task jobs: on threads of this machine, or on a Ray cluster.

:func:`run_jobs` hands each :class:`~divergent.incoherence.run.TaskJob` to :func:`~divergent.incoherence.run.run_task`
(threads) or to :mod:`divergent.incoherence.ray_executor` (Ray), and gives the caller each job's
results as soon as it is done, in the calling thread, whatever the executor.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from divergent.errors import DivergentError, InvalidArgument
from divergent.incoherence.ray_executor import run_jobs_on_ray
from divergent.incoherence.run import TaskJob, UnitResult, run_task

__all__ = ["Executor", "choose_executor", "run_jobs"]


class Executor(enum.StrEnum):
    #: threads on this machine, each driving its own sandboxed worker
    THREADS = "threads"
    #: Ray tasks on a cluster (the ``divergent[ray]`` extra), one per task job
    RAY = "ray"


def choose_executor(executor: str, address: str | None = None) -> Executor:
    """The executor named ``executor``; an ``address`` only makes sense with Ray."""
    try:
        chosen = Executor(executor)
    except ValueError:
        raise InvalidArgument(f"--executor {executor!r}: choose threads or ray") from None
    if address is not None and chosen is not Executor.RAY:
        raise InvalidArgument(f"--address {address!r} needs --executor ray")
    return chosen


def run_jobs(
    jobs: Iterable[TaskJob],
    *,
    jobs_in_parallel: int | None,
    on_result: Callable[[TaskJob, list[UnitResult] | None, str, float], None],
    executor: str = Executor.THREADS,
    address: str | None = None,
    **options: Any,
) -> None:
    """Run task jobs, ``jobs_in_parallel`` at a time; ``on_result`` gets each job's results (or
    None and the error text) as soon as it is done, in the calling thread.

    ``executor="ray"`` runs each job as a Ray task on the cluster at ``address`` (None: a local
    instance; ``jobs_in_parallel`` None: as many as the cluster has CPUs); threads run one job at a
    time unless told otherwise."""
    if jobs_in_parallel is not None and jobs_in_parallel < 1:
        raise InvalidArgument(f"jobs={jobs_in_parallel!r} must be >= 1")
    if choose_executor(executor, address) is Executor.RAY:
        run_jobs_on_ray(jobs, on_result=on_result, address=address, max_in_flight=jobs_in_parallel, **options)
        return

    def one(job: TaskJob) -> tuple[TaskJob, list[UnitResult] | None, str, float]:
        started = time.monotonic()
        try:
            return job, run_task(job, **options), "", time.monotonic() - started
        except DivergentError as error:
            return job, None, str(error), time.monotonic() - started

    with ThreadPoolExecutor(max_workers=jobs_in_parallel or 1) as pool:
        # Save each job as soon as it is done, whatever the order: a kill loses only running jobs.
        for future in as_completed([pool.submit(one, job) for job in jobs]):
            on_result(*future.result())
