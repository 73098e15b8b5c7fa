"""The executor seam: work a function over keyed items, on threads or on a cluster.

``Executor.map(work, items, on_done, fatal=...)`` calls ``work(payload)`` for every ``(key,
payload)`` and gives ``on_done`` each item's :class:`Finished` record in the calling thread, in the
order the items finish, so the caller can store each one at once (a killed run loses only the
items in flight). ``work`` returns plain JSON (a mapping); it runs in worker threads here, in other
processes or on other machines with Ray, so it must be picklable when the executor is remote (a
module-level function, or a frozen dataclass with a ``__call__``), and it opens what it needs (a
sandbox runner, say) in the process it runs in.

An exception of a type in ``fatal`` (an unreachable model: every later item would fail the same
way) stops the map and is raised again in the caller; any other exception becomes that item's
error text, and the map goes on. Ctrl-C stops what is queued or running and raises
KeyboardInterrupt.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from divergent.errors import InvalidArgument

if TYPE_CHECKING:
    from divergent.llm.chat import ChatModel

__all__ = ["Executor", "Finished", "ThreadExecutor", "describe_error"]

Payload = TypeVar("Payload")
#: a plain-JSON result of one item
Result = Mapping[str, Any]
Work = Callable[[Payload], Result]
Fatal = tuple[type[BaseException], ...]


@dataclass(frozen=True)
class Finished:
    """One item's end: its result, or its error as one line (``"TypeName: message"``)."""

    key: str
    result: Result | None
    error: str | None
    seconds: float


def describe_error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


class Executor(Protocol):
    """Works items through a function; see the module docstring."""

    #: items in flight at once
    @property
    def capacity(self) -> int: ...

    def map(
        self,
        work: Work[Payload],
        items: Iterable[tuple[str, Payload]],
        on_done: Callable[[Finished], None],
        *,
        fatal: Fatal = (),
    ) -> None: ...

    def serve_model(self, chat: ChatModel) -> ChatModel:
        """The model as the workers should call it: itself on threads; on a cluster, a stand-in
        that sends each call to one service holding the client (its key, cache and limits)."""
        ...


class ThreadExecutor:
    """Items on threads of this machine, ``jobs`` at a time (1: in the calling thread)."""

    def __init__(self, jobs: int = 1) -> None:
        if jobs < 1:
            raise InvalidArgument(f"--jobs {jobs}: need at least 1")
        self.jobs = jobs

    @property
    def capacity(self) -> int:
        return self.jobs

    def serve_model(self, chat: ChatModel) -> ChatModel:
        return chat

    def map(
        self,
        work: Work[Payload],
        items: Iterable[tuple[str, Payload]],
        on_done: Callable[[Finished], None],
        *,
        fatal: Fatal = (),
    ) -> None:
        if self.jobs == 1:
            for key, payload in items:
                on_done(_timed(work, key, payload, fatal))
            return
        queue = iter(items)
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="divergent-item")
        running: set[Future[Finished]] = set()
        try:
            while True:
                while len(running) < self.jobs:
                    entry = next(queue, None)
                    if entry is None:
                        break
                    running.add(pool.submit(_timed, work, entry[0], entry[1], fatal))
                if not running:
                    break
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    on_done(future.result())  # a fatal error (or Ctrl-C in a worker) is raised here
        finally:
            for future in running:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)


def _timed(work: Work[Payload], key: str, payload: Payload, fatal: Fatal) -> Finished:
    started = time.monotonic()
    try:
        result = work(payload)
    except fatal:
        raise
    except Exception as error:  # noqa: BLE001 - one item's failure is that item's result
        return Finished(key, None, describe_error(error), time.monotonic() - started)
    return Finished(key, result, None, time.monotonic() - started)
