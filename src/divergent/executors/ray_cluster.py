"""The Ray executor (the optional ``divergent[ray]`` extra): items as Ray tasks on a cluster.

Ray is imported only here and only when asked for. One Ray task per item; at most ``jobs`` (by
default the cluster's CPUs) in flight, so a long dataset never floods the cluster's queue.

What crosses the wire:

* to the cluster: the work function once (in Ray's object store), then each item's payload;
* back: the item's plain-JSON result, zlib-compressed, never objects; an error as its text. Untrusted
  code runs only in the sandboxes a Ray worker starts, exactly as on one machine; the Ray worker
  itself runs only divergent's own code, and refuses to work for a driver of another divergent
  version.

The caller's ``on_done`` gets each item as soon as it is done, in the calling thread, as with the
threads executor: a killed driver loses only the items still running. A Ray task that fails (its
worker died, its node was lost) is retried once, then reported as that item's error; the run goes
on. Ctrl-C stops the items queued or running on the cluster.

A language model is served to the workers by one Ray actor on the driver's node that holds the
client (:meth:`RayExecutor.serve_model`): the response cache stays in the driver's store, the
concurrency limit is one for the whole cluster, and the key is read where the driver runs.
"""

from __future__ import annotations

import json
import logging
import socket
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType, TracebackType
from typing import Any

import divergent
from divergent.errors import InvalidArgument, MissingExtra
from divergent.executors.base import Fatal, Finished, Payload, Work, describe_error
from divergent.llm.chat import ChatModel, Completion, Message, Usage

__all__ = [
    "CONNECT_TIMEOUT",
    "INSTALL_HINT",
    "TASK_RETRIES",
    "RayExecutor",
    "check_reachable",
    "cluster_cpus",
    "require_ray",
    "run_item",
]

INSTALL_HINT = "pip install 'divergent[ray]'"
#: a task whose worker or node dies is tried once more before the item counts as failed
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


def cluster_cpus(ray: ModuleType) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_item(work: Work[Payload], payload: Payload, fatal: Fatal, version: str) -> bytes:
    """Runs in a Ray worker: one item, answered as compressed JSON (its result, its error text, or
    the fatal error that must stop the run)."""
    started = time.monotonic()
    answer: dict[str, Any]
    if version != divergent.__version__:
        answer = {"error": f"the Ray worker has divergent {divergent.__version__}, the driver {version}: "
                           "install the same version on every node"}
    else:
        try:
            answer = {"result": dict(work(payload))}
        except Exception as error:  # noqa: BLE001 - the item's failure travels back as text
            fatal_index = next((i for i, kind in enumerate(fatal) if isinstance(error, kind)), None)
            answer = {"error": _one_line(error), "fatal": fatal_index, "message": str(error)}
    answer["seconds"] = time.monotonic() - started
    return zlib.compress(json.dumps(answer).encode(), level=6)


def decode(key: str, blob: bytes, fatal: Fatal) -> Finished:
    """A worker's answer as a :class:`Finished`; raises the fatal error it reports."""
    answer = json.loads(zlib.decompress(blob))
    seconds = float(answer.get("seconds", 0.0))
    if answer.get("fatal") is not None:
        raise fatal[int(answer["fatal"])](str(answer.get("message", "")))
    if "result" in answer:
        return Finished(key, answer["result"], None, seconds)
    return Finished(key, None, str(answer.get("error", "no answer")), seconds)


def _one_line(error: BaseException) -> str:
    """``TypeName: message`` of an exception, with Ray's wrapper of a remote one seen through."""
    cause = getattr(error, "cause", None)  # a RayTaskError raised by ray.get in the worker (a model call)
    return describe_error(cause if isinstance(cause, BaseException) else error)


class RayExecutor:
    """Items as Ray tasks; a context manager that connects (or starts a local Ray) and disconnects."""

    def __init__(self, address: str | None = None, jobs: int | None = None) -> None:
        if jobs is not None and jobs < 1:
            raise InvalidArgument(f"--jobs {jobs}: need at least 1")
        self.address = address
        self.jobs = jobs
        self._ray: ModuleType | None = None
        self._connected_here = False
        self._services: list[Any] = []

    def __enter__(self) -> RayExecutor:
        ray = require_ray()
        self._ray = ray
        if not ray.is_initialized():
            check_reachable(self.address)
            try:
                # address=None starts a local instance (or joins $RAY_ADDRESS); "auto" finds a running
                # cluster on this machine; "ray://host:10001" goes through the Ray client.
                ray.init(address=self.address, include_dashboard=False, logging_level=logging.WARNING,
                         log_to_driver=False, configure_logging=True)
            except (ConnectionError, RuntimeError, ValueError) as error:
                where = f"the Ray cluster at {self.address}" if self.address else "a local Ray instance"
                first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                raise InvalidArgument(f"cannot connect to {where}: {first_line}") from None
            self._connected_here = True
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        ray = self._ray
        if ray is None:
            return
        for service in self._services:
            try:
                ray.kill(service)
            except Exception:  # noqa: BLE001 - best effort: the job's end takes its actors anyway
                pass
        self._services.clear()
        if self._connected_here:
            ray.shutdown()
            self._connected_here = False

    @property
    def ray(self) -> ModuleType:
        if self._ray is None:
            raise InvalidArgument("the Ray executor is used outside its `with` block")
        return self._ray

    @property
    def capacity(self) -> int:
        return self.jobs or cluster_cpus(self.ray)

    def map(
        self,
        work: Work[Payload],
        items: Iterable[tuple[str, Payload]],
        on_done: Callable[[Finished], None],
        *,
        fatal: Fatal = (),
    ) -> None:
        ray = self.ray
        limit = self.capacity
        remote = ray.remote(max_retries=TASK_RETRIES, retry_exceptions=False)(run_item)
        work_ref = ray.put(work)
        pending = iter(items)
        running: dict[Any, tuple[str, float]] = {}
        try:
            while True:
                while len(running) < limit:
                    entry = next(pending, None)
                    if entry is None:
                        break
                    key, payload = entry
                    ref = remote.remote(work_ref, payload, fatal, divergent.__version__)
                    running[ref] = (key, time.monotonic())
                if not running:
                    break
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    key, submitted = running.pop(ref)
                    try:
                        finished = decode(key, ray.get(ref), fatal)
                    except ray.exceptions.RayError as failure:
                        finished = Finished(key, None, _describe_failure(failure), time.monotonic() - submitted)
                    on_done(finished)
        except BaseException:
            # Ctrl-C, a fatal error, or a failing on_done: stop what is queued or running on the
            # cluster. When this executor connected, disconnecting (on leaving the block) ends the
            # Ray job, and Ray then kills its running tasks and drops its queued ones. ray.cancel is
            # kept for a connection the caller owns: in Ray 2.60 it races with a task that is just
            # finishing and can abort the driver ("Tried to complete task that was not pending").
            if not self._connected_here:
                for ref in running:
                    try:
                        ray.cancel(ref, recursive=True)
                    except Exception:  # noqa: BLE001 - best effort; the run is stopping anyway
                        pass
            raise

    def serve_model(self, chat: ChatModel) -> ChatModel:
        """One actor on this node holds a client like ``chat`` (its settings, its cache's store);
        the workers get a :class:`RemoteModel` that sends it every call."""
        from divergent.llm.client import LLMClient

        if not isinstance(chat, LLMClient):
            raise InvalidArgument("--executor ray shares a model given by --model (an OpenAI-compatible "
                                  f"endpoint), not a {type(chat).__name__}")
        ray = self.ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = NodeAffinitySchedulingStrategy(node_id=ray.get_runtime_context().get_node_id(), soft=True)
        service_class = ray.remote(num_cpus=0, max_concurrency=max(1, chat.settings.concurrency),
                                   max_restarts=1)(ModelService)
        service = service_class.options(scheduling_strategy=here).remote(chat.settings, str(chat.store_path))
        self._services.append(service)
        return RemoteModel(service, chat.model)


class ModelService:
    """A Ray actor: the one client of a run's model (its key, response cache and concurrency limit)."""

    def __init__(self, settings: Any, store_path: str) -> None:
        from divergent.llm.client import LLMClient

        self.client = LLMClient(settings, store=store_path)

    def complete(self, messages: Sequence[dict[str, str]], temperature: float, max_tokens: int | None,
                 sample_index: int, seconds: float | None = None) -> Completion:
        # a deadline crosses processes (and hosts) as the seconds left: clocks differ
        deadline = None if seconds is None else time.monotonic() + seconds
        return self.client.complete(messages, temperature=temperature, max_tokens=max_tokens,
                                    sample_index=sample_index, deadline=deadline)

    def usage(self) -> Usage:
        return self.client.usage()


class RemoteModel:
    """The :class:`~divergent.llm.chat.ChatModel` a Ray worker sees: every call goes to the run's
    :class:`ModelService`; an error it raises is raised here as its own type (an unreachable
    endpoint still stops the run)."""

    def __init__(self, service: Any, model: str) -> None:
        self.service = service
        self._model = model

    @property
    def model(self) -> str:
        return self._model

    def complete(self, messages: Sequence[Message], *, temperature: float = 0.0, max_tokens: int | None = None,
                 sample_index: int = 0, deadline: float | None = None) -> Completion:
        import ray

        seconds = None if deadline is None else max(0.0, deadline - time.monotonic())
        reference = self.service.complete.remote([dict(m) for m in messages], temperature, max_tokens, sample_index,
                                                 seconds)
        try:
            return ray.get(reference)
        except ray.exceptions.RayTaskError as error:
            cause = error.cause if isinstance(getattr(error, "cause", None), BaseException) else None
            if cause is not None:
                raise cause from None
            raise

    def usage(self) -> Usage:
        import ray

        return ray.get(self.service.usage.remote())


def _describe_failure(failure: Exception) -> str:
    """One line for the store: Ray's errors carry long tracebacks."""
    lines = [line.strip() for line in str(failure).splitlines() if line.strip()]
    summary = lines[0] if lines else ""
    return f"Ray task failed ({type(failure).__name__}): {summary}"[:500]
