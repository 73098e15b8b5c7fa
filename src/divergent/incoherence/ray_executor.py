"""Running incoherence task jobs on a Ray cluster (the optional ``divergent[ray]`` extra).

One Ray task per :class:`~divergent.incoherence.run.TaskJob`: a task with all its models'
candidates, so one Ray task runs ``n`` inputs × every sample (a batch, not one input). Ray is
imported only here and only when asked for.

What crosses the wire:

* to the cluster, per job, a compact payload: the task, and its candidates' sources deduplicated
  (low-temperature samples repeat often) and zlib-compressed — sources are the bulk of a job; the
  options shared by every job (policy, limits, ...) are put in the object store once;
* back, plain data: the units as compressed JSON, never objects. Untrusted code runs only in the
  sandbox that the Ray worker starts, exactly as on one machine; the Ray worker itself runs only
  divergent's own code.

The caller's ``on_result`` gets each job as soon as it is done, in the calling thread, as with the
threads executor: a killed driver loses only the jobs still running. A Ray task that fails (its
worker died, its node was lost) is retried once, then reported as that job's error; the run goes
on. Ctrl-C cancels the jobs still queued or running on the cluster.
"""

from __future__ import annotations

import json
import logging
import socket
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import divergent
from divergent.datasets import Candidate, Task
from divergent.errors import DivergentError, InvalidArgument, MissingExtra
from divergent.incoherence.run import TaskJob, UnitResult, run_task

#: what ``on_result`` receives: the job, its units (None on failure), the error text, seconds spent
ResultCallback = Callable[[TaskJob, list[UnitResult] | None, str, float], None]
#: measures one job (``run_task``'s signature); replaceable so tests can make a Ray worker die
JobRunner = Callable[..., list[UnitResult]]

INSTALL_HINT = "pip install 'divergent[ray]'"
#: a task whose worker or node dies is tried once more before the job counts as failed
TASK_RETRIES = 1
#: seconds to wait for a TCP answer from the cluster's address before giving up
CONNECT_TIMEOUT = 10.0


def require_ray() -> ModuleType:
    """The ``ray`` module, or :class:`MissingExtra` saying how to install it."""
    try:
        import ray
    except ImportError as error:
        raise MissingExtra(f"--executor ray needs Ray, which is not installed: {INSTALL_HINT}") from error
    return ray


@dataclass(frozen=True)
class JobPayload:
    """A task job as shipped to a Ray worker: each distinct source once, compressed."""

    task: Task
    #: (model, temperature, [(candidate index, entry point, number of its source)])
    groups: tuple[tuple[str, float, tuple[tuple[int, str, int], ...]], ...]
    #: zlib-compressed JSON list of the distinct candidate sources
    sources: bytes
    #: the driver's divergent version; the worker refuses to measure with another one
    version: str

    @classmethod
    def pack(cls, job: TaskJob) -> JobPayload:
        numbers: dict[str, int] = {}
        groups = []
        for (model, temperature), candidates in job.candidates.items():
            members = tuple(
                (c.index, c.entry_point, numbers.setdefault(c.source, len(numbers))) for c in candidates
            )
            groups.append((model, temperature, members))
        sources = zlib.compress(json.dumps(list(numbers)).encode(), level=6)
        return cls(task=job.task, groups=tuple(groups), sources=sources, version=divergent.__version__)

    def unpack(self) -> TaskJob:
        sources: list[str] = json.loads(zlib.decompress(self.sources))
        candidates = {
            (model, temperature): [
                Candidate(task_id=self.task.task_id, model=model, temperature=temperature, index=index,
                          source=sources[number], entry_point=entry_point)
                for index, entry_point, number in members
            ]
            for model, temperature, members in self.groups
        }
        return TaskJob(task=self.task, candidates=candidates)


def measure_payload(payload: JobPayload, options: dict[str, Any], runner: JobRunner = run_task) -> bytes:
    """Runs in a Ray worker: measure one job, answer with compressed JSON (units or an error)."""
    started = time.monotonic()
    if payload.version != divergent.__version__:
        answer: dict[str, Any] = {
            "error": f"the Ray worker has divergent {divergent.__version__}, the driver {payload.version}: "
                     "install the same version on every node"
        }
    else:
        try:
            results = runner(payload.unpack(), **options)
            answer = {"units": [result.to_json() for result in results]}
        except DivergentError as error:
            answer = {"error": str(error)}
    answer["seconds"] = time.monotonic() - started
    return zlib.compress(json.dumps(answer).encode(), level=6)


def decode_answer(blob: bytes) -> tuple[list[UnitResult] | None, str, float]:
    """A worker's answer as (units or None, error text, seconds)."""
    answer = json.loads(zlib.decompress(blob))
    seconds = float(answer.get("seconds", 0.0))
    if "units" in answer:
        return [UnitResult.from_json(unit) for unit in answer["units"]], "", seconds
    return None, str(answer.get("error", "no answer")), seconds


def check_reachable(address: str | None, timeout: float = CONNECT_TIMEOUT) -> None:
    """Fail fast when nothing listens at a ``HOST:PORT`` or ``ray://HOST:PORT`` address.

    Ray itself retries an unreachable cluster for many minutes before giving up (13 minutes with
    Ray 2.60 on this machine); "auto" and a local instance are left to Ray."""
    if address is None or address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise InvalidArgument(f"--address {address!r}: expected HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as error:
        raise InvalidArgument(f"--address {address}: no Ray cluster answers there ({error})") from None


def _connect(ray: ModuleType, address: str | None) -> bool:
    """Connect to (or start) Ray; True when this call did, so the caller disconnects at the end."""
    if ray.is_initialized():
        return False
    check_reachable(address)
    try:
        # address=None starts a local instance (or joins $RAY_ADDRESS); "auto" finds a running
        # cluster on this machine; "ray://host:10001" goes through the Ray client.
        ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING,
                 log_to_driver=False, configure_logging=True)
    except (ConnectionError, RuntimeError, ValueError) as error:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise InvalidArgument(f"cannot connect to {where}: {first_line}") from None
    return True


def cluster_cpus(ray: ModuleType) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_jobs_on_ray(
    jobs: Iterable[TaskJob],
    *,
    on_result: ResultCallback,
    address: str | None = None,
    max_in_flight: int | None = None,
    runner: JobRunner = run_task,
    **options: Any,
) -> None:
    """Run task jobs as Ray tasks, at most ``max_in_flight`` at a time (default: the cluster's CPUs).

    ``options`` are :func:`run_task`'s keyword arguments. ``on_result`` is called in this thread
    as each job finishes, in whatever order they finish."""
    if max_in_flight is not None and max_in_flight < 1:
        raise InvalidArgument(f"jobs={max_in_flight!r} must be >= 1")
    ray = require_ray()
    connected_here = _connect(ray, address)
    try:
        limit = max_in_flight or cluster_cpus(ray)
        measure = ray.remote(max_retries=TASK_RETRIES, retry_exceptions=False)(measure_payload)
        options_ref = ray.put(options)
        pending = iter(jobs)
        running: dict[Any, tuple[TaskJob, float]] = {}
        try:
            while True:
                while len(running) < limit:
                    job = next(pending, None)
                    if job is None:
                        break
                    ref = measure.remote(JobPayload.pack(job), options_ref, runner)
                    running[ref] = (job, time.monotonic())
                if not running:
                    break
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    job, submitted = running.pop(ref)
                    try:
                        results, error, seconds = decode_answer(ray.get(ref))
                    except ray.exceptions.RayError as failure:
                        results, error, seconds = None, _describe(failure), time.monotonic() - submitted
                    on_result(job, results, error, seconds)
        except BaseException:
            # Ctrl-C (or a failing on_result): stop what is queued or running on the cluster. When
            # this call connected, disconnecting (below) ends the Ray job, and Ray then kills the
            # job's running tasks and drops its queued ones. ray.cancel is kept for a connection the
            # caller owns: in Ray 2.60 it races with a task that is just finishing and can abort the
            # driver ("Tried to complete task that was not pending"), seen in 3 of 10 interrupts here.
            if not connected_here:
                for ref in running:
                    try:
                        ray.cancel(ref, recursive=True)
                    except Exception:  # noqa: BLE001 - best effort; the run is stopping anyway
                        pass
            raise
    finally:
        if connected_here:
            ray.shutdown()


def _describe(failure: Exception) -> str:
    """One line for the store: Ray's errors carry long tracebacks."""
    lines = [line.strip() for line in str(failure).splitlines() if line.strip()]
    summary = lines[0] if lines else ""
    return f"Ray task failed ({type(failure).__name__}): {summary}"[:500]
