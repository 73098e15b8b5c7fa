"""Many small implementations in one sandboxed worker: the input × implementation matrix.

Runs over many programs (the m samples of an LLM for each of hundreds of tasks) would spend more
time starting one worker per program than running them. :class:`ImplementationMatrix` loads a
whole group of implementations into one worker, each as its own module, and runs every input on
every one of them. The guarantees of the sandbox hold for the group as a whole (see
``docs/sandbox.md``); within the group, the programs share one interpreter, so one may disturb
another's globals. Use it for measurements over many programs, and :class:`WorkerPool` (one worker
per implementation) for ``check``.

An implementation that times out ``max_timeouts`` times is not called again: its later cells are
timeouts without running (a looping sample would otherwise cost a timeout per input). A crash
(a signal, ``os._exit``) gives that one cell a CRASH outcome; the worker starts a fresh call child
(or, if the worker itself failed, a fresh worker is started) and the rest of the matrix goes on.
Every frame is checked (:mod:`divergent.sandbox.child.wire`) as in the pool.
"""

from __future__ import annotations

import pickle
import selectors
import time
from collections.abc import Sequence

from divergent.errors import DivergentError, SandboxUnavailable
from divergent.programs import PythonFunction
from divergent.records import Input, Outcome, OutcomeKind
from divergent.sandbox.answers import ArgumentEncodings, checked_outcome
from divergent.sandbox.child.wire import Malformed, check_load_answer, check_results_frame
from divergent.sandbox.frames import ChildGone, ProtocolViolation, implementation_payload
from divergent.sandbox.isolation import Isolation, choose_level
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import REPORT_MARGIN, WorkerProcess, account_of_failure

#: cells sent in one message
_CHUNK = 8192


class MatrixDeadline(DivergentError):
    """A matrix run went past the deadline its caller gave (the worker is stopped)."""


class ImplementationMatrix:
    """One worker holding several implementations; run inputs on all of them."""

    def __init__(
        self,
        implementations: Sequence[PythonFunction],
        *,
        limits: Limits = Limits(),
        isolation: str | Isolation | None = None,
        max_timeouts: int = 3,
        compare_mutation: bool = False,
    ) -> None:
        self.implementations = tuple(implementations)
        self.limits = limits
        self.level = choose_level(isolation)
        self.max_timeouts = max_timeouts
        self.compare_mutation = compare_mutation
        self.executions = 0
        self.restarts = 0
        #: per implementation: None, or why it could not be loaded (its cells are CRASH outcomes)
        self.load_errors: list[str | None] = [None] * len(self.implementations)
        self._worker: WorkerProcess | None = None
        self._arguments = ArgumentEncodings(())
        self._timeouts: list[float] | None = None
        self._deadline: float | None = None
        #: per implementation: how often it killed or hung the worker
        self._failures = [0] * len(self.implementations)
        self._start()

    def _start(self) -> None:
        worker = WorkerProcess(None, self.limits, self.level, read_only=self.implementations)
        self._worker = worker
        payload = {"implementations": [implementation_payload(impl) for impl in self.implementations]}
        worker.send("load_many", payload)
        patience = self.limits.load_timeout * max(1, len(self.implementations)) + 10.0
        try:
            answer = worker.wait_frame(patience)
        except ChildGone as error:
            raise SandboxUnavailable(f"the worker died while loading: {error} ({worker.kill()})") from error
        results = answer.get("results") if answer is not None else None
        try:
            if not isinstance(results, list) or len(results) != len(self.implementations):
                raise Malformed("not an answer to load_many")
            for result in results:
                check_load_answer(result)
        except Malformed as error:
            how = worker.kill()
            raise SandboxUnavailable(f"the worker did not answer while loading the implementations ({error}; {how})") from None
        for index, result in enumerate(results):
            self.load_errors[index] = None if result["ok"] else str(result.get("error", "could not load"))

    def close(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None

    def __enter__(self) -> ImplementationMatrix:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(
        self,
        inputs: Sequence[Input],
        implementations: Sequence[int] | None = None,
        *,
        timeouts: Sequence[float] | None = None,
        deadline: float | None = None,
    ) -> list[list[Outcome]]:
        """Outcomes indexed ``[input][implementation]`` (only the given implementations are run;
        the others' cells are None). ``timeouts`` gives each input its own time limit per call
        (at most the limits' timeout); by default every call gets the limits' timeout. Past
        ``deadline`` (a ``time.monotonic()`` value) the worker is stopped and
        :class:`MatrixDeadline` raised.

        Equal outcomes on one input are one shared :class:`Outcome` object (its ``seconds`` are
        those of the first such call): callers can group cells by identity before comparing."""
        self._deadline = deadline
        if timeouts is not None:
            if len(timeouts) != len(inputs):
                raise ValueError(f"{len(timeouts)} timeouts for {len(inputs)} inputs")
            timeouts = [min(float(t), self.limits.timeout) for t in timeouts]
        self._timeouts = timeouts
        count = len(self.implementations)
        columns = list(range(count)) if implementations is None else list(implementations)
        blobs = [pickle.dumps((tuple(i.args), dict(i.kwargs)), protocol=pickle.HIGHEST_PROTOCOL) for i in inputs]
        self._arguments = ArgumentEncodings(inputs)
        results: list[list[Outcome | None]] = [[None] * count for _ in inputs]
        todo = [(i, j) for i in range(len(inputs)) for j in columns]
        while todo:
            todo = self._skip_broken(todo, results)
            chunk, todo = todo[:_CHUNK], todo[_CHUNK:]
            if chunk:
                todo = self._run_chunk(chunk, blobs, results) + todo
        self.executions += len(inputs) * len(columns)
        return results  # type: ignore[return-value]

    def _skip_broken(self, cells: list[tuple[int, int]], results: list[list[Outcome | None]]) -> list[tuple[int, int]]:
        """Cells of implementations that killed or hung the worker too often are not run again."""
        broken = {j for j, failures in enumerate(self._failures) if failures >= self.max_timeouts}
        if not broken:
            return cells
        kept = []
        for i, j in cells:
            if j in broken:
                results[i][j] = Outcome(
                    kind=OutcomeKind.CRASH, detail=f"not run: killed its worker {self._failures[j]} times before"
                )
            else:
                kept.append((i, j))
        return kept

    def _run_chunk(
        self, cells: list[tuple[int, int]], blobs: list[bytes], results: list[list[Outcome | None]]
    ) -> list[tuple[int, int]]:
        """Run cells; return the ones left when the worker died or hung (after recording the culprit)."""
        used = sorted({i for i, _ in cells})
        position_of = {i: p for p, i in enumerate(used)}
        worker = self._worker
        assert worker is not None
        reported = 0
        #: per input: its different outcomes in the order the worker first sent them
        different: dict[int, list[Outcome]] = {}
        per_input = self._timeouts
        arguments = self._arguments
        try:
            worker.send(
                "run_cells",
                {
                    "inputs": [blobs[i] for i in used],
                    "cells": [[position_of[i], j] for i, j in cells],
                    "encode_args": self.compare_mutation,
                    "max_timeouts": self.max_timeouts,
                    "timeouts": [per_input[i] for i in used] if per_input is not None else None,
                },
            )
            patience = (max(per_input[i] for i in used) if per_input is not None else self.limits.timeout)
            patience += self.limits.grace + REPORT_MARGIN
            last = time.monotonic()
            with selectors.DefaultSelector() as selector:
                selector.register(worker.fileno(), selectors.EVENT_READ)
                while True:
                    wait = last + patience - time.monotonic()
                    if self._deadline is not None:
                        if time.monotonic() > self._deadline:
                            self.close()
                            raise MatrixDeadline("the matrix ran past its deadline; stopped")
                        wait = min(wait, self._deadline - time.monotonic())
                    selector.select(max(0.0, wait))
                    frames = worker.read_frames()
                    if not frames and time.monotonic() - last > patience:
                        # a worker reports its call child's hangs: a silent one was stopped or broken
                        return self._after_failure(cells, reported, results, silent=True)
                    for frame in frames:
                        last = time.monotonic()
                        for raw in check_results_frame(frame, from_worker=True):
                            i, j = cells[reported]
                            known = different.setdefault(i, [])
                            if type(raw) is dict and "same" in raw:
                                same = raw["same"]
                                if len(raw) != 1 or type(same) is not int or not 0 <= same < len(known):
                                    raise Malformed("a reference to an outcome that was never sent")
                                outcome = known[same]
                            else:
                                outcome = checked_outcome(raw, self.limits.stdout_bytes, arguments, i)
                                known.append(outcome)
                            results[i][j] = outcome
                            reported += 1
                        if "failure" in frame:
                            return self._after_failure(cells, reported, results, failure=frame["failure"])
                        if frame.get("done"):
                            if reported != len(cells):
                                raise ProtocolViolation("missing results")
                            return []
        except (ProtocolViolation, Malformed, KeyError, TypeError, ValueError, IndexError) as error:
            return self._after_failure(cells, reported, results, broke=f"the worker broke the protocol ({str(error)[:200]})")
        except ChildGone:
            return self._after_failure(cells, reported, results)

    def _after_failure(
        self,
        cells: list[tuple[int, int]],
        reported: int,
        results: list[list[Outcome | None]],
        *,
        failure: dict | None = None,
        broke: str | None = None,
        silent: bool = False,
    ) -> list[tuple[int, int]]:
        """Give the culprit cell its outcome; the cells left to run. With a ``failure`` the worker
        reported (its call child died, hung or broke the protocol) the worker lives on; else (it
        died, stopped answering, or ``broke`` the protocol) it is replaced. After a broken protocol
        the chunk's answers so far are suspect (a program may have written its neighbours'): they
        are run again."""
        worker = self._worker
        assert worker is not None
        started, how, hung, suspect = account_of_failure(worker, failure=failure, broke=broke, silent=silent)
        first = 0 if suspect else reported
        culprit = started if started is not None and first <= started < len(cells) else reported
        if suspect:
            for i, j in cells[:reported]:
                results[i][j] = None
        if culprit < len(cells):
            i, j = cells[culprit]
            self._failures[j] += 1
            if hung:
                results[i][j] = Outcome(kind=OutcomeKind.TIMEOUT, detail="no answer in time; killed")
            else:
                results[i][j] = Outcome(kind=OutcomeKind.CRASH, detail=how)
        self.restarts += 1
        if failure is None:
            self._start()
        return [cell for k, cell in enumerate(cells) if k >= first and k != culprit]
