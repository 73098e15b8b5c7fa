"""The runner of whole programs: text inputs on stdin, one process per (program, input), in parallel.

:class:`ProcessRunner` builds every program once (:mod:`divergent.sandbox.builds`), then starts one
sandboxed launcher per program (:mod:`divergent.sandbox.launch`): the sandbox starts once per
program, never per input. :meth:`ProcessRunner.run` sends each launcher the batch and gathers one
:class:`~divergent.records.Outcome` per program and input. A launcher that dies or hangs gives the run
it was on a crash or timeout outcome and is replaced; the batch goes on.

With a checker (``--checker``, testlib's convention ``checker input output answer``, exit 0 =
accepted), the runner also decides which outputs are the same answer: the first program that
printed is the first class's representative; every other output is checked against the
representatives in order (identical outputs need no check) and joins the first that accepts it, or
becomes a representative itself. The outcome records it in ``accepted_with``, which the
comparison (:class:`divergent.text_comparison.OutputComparison`) compares. The checker is
untrusted too: it runs under its own launcher.

:class:`ProgramService` runs one helper program (validator, generator, checker) the same way,
synchronously, replacing its launcher when it dies.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import selectors
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from divergent.errors import SandboxUnavailable
from divergent.programs import Program, StdinProgram
from divergent.records import Outcome, OutcomeKind, TextInput
from divergent.sandbox.builds import BuiltProgram, build
from divergent.sandbox.frames import ChildGone
from divergent.sandbox.isolation import Isolation, choose_level
from divergent.sandbox.launch import Job, LauncherProcess, ProgramLimits, ProgramRun
from divergent.sandbox.staging import check_declared

#: inputs sent to a launcher in one batch (results stream back one by one)
_CHUNK = 256
#: the checker's limits: a checker reads three files and answers quickly
CHECKER_LIMITS = ProgramLimits(time_limit=5.0, memory_mb=512, output_bytes=64 * 1024)


def build_all(programs: Sequence[StdinProgram], *, level: Isolation, limits: ProgramLimits,
              deadline: float | None = None) -> list[BuiltProgram]:
    """Every program built (or found in the build cache), two at a time: each build is a compiler
    in its own sandbox, none past ``deadline`` (a ``time.monotonic()`` value: the end of the
    budget). The first build error raises (LoadError)."""
    check_declared(list(programs))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(build, program, level=level, limits=limits, deadline=deadline) for program in programs]
        return [future.result() for future in futures]


def start_launcher(built: BuiltProgram, limits: ProgramLimits, level: Isolation) -> LauncherProcess:
    launcher = LauncherProcess(
        mode=built.mode, argv=built.argv, script=built.script, limits=limits, level=level,
        address_space=built.address_space, read_only=built.read_only,
    )
    launcher.ready()
    return launcher


class ProgramService:
    """One helper program (validator, generator, checker), run synchronously under its own
    launchers: ``workers`` of them share a batch (one per core: the programs under test wait for
    the validator), each replaced when it dies."""

    def __init__(self, program: StdinProgram, *, limits: ProgramLimits, level: Isolation,
                 built: BuiltProgram | None = None, workers: int = 1) -> None:
        self.program = program
        self.limits = limits
        self.level = level
        self.built = built or build(program, level=level, limits=limits)
        self.runs = 0
        self.workers = max(1, workers)
        self._launchers: list[LauncherProcess | None] = [None] * self.workers
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None

    @property
    def label(self) -> str:
        return self.program.label

    def run(self, jobs: Sequence[Job], *, deadline: float | None = None) -> list[ProgramRun | None]:
        """One result per job (None: not run before ``deadline``)."""
        if self.workers == 1 or len(jobs) < 2 * self.workers:
            return self._run_on(0, jobs, deadline)
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="divergent-service")
        size = -(-len(jobs) // self.workers)
        parts = [jobs[k * size : (k + 1) * size] for k in range(self.workers)]
        futures = [self._pool.submit(self._run_on, k, part, deadline) for k, part in enumerate(parts)]
        return [result for future in futures for result in future.result()]

    def _run_on(self, slot: int, jobs: Sequence[Job], deadline: float | None) -> list[ProgramRun | None]:
        results: list[ProgramRun | None] = [None] * len(jobs)
        position = 0
        while position < len(jobs):
            if deadline is not None and time.monotonic() >= deadline:
                break
            launcher = self._ready(slot)
            part = launcher.run(jobs[position:], deadline=deadline)
            done = 0
            for offset, result in enumerate(part):
                if result is None:
                    break
                results[position + offset] = result
                done = offset + 1
            self.runs += done
            position += done
            if done < len(part) and launcher.alive:
                break  # the deadline stopped it
            if not launcher.alive:
                self._launchers[slot] = None
            if done == 0:
                break
        return results

    def _ready(self, slot: int) -> LauncherProcess:
        launcher = self._launchers[slot]
        if launcher is None or not launcher.alive:
            if launcher is not None:
                launcher.close()
            launcher = self._launchers[slot] = start_launcher(self.built, self.limits, self.level)
        return launcher

    def close(self) -> None:
        for slot, launcher in enumerate(self._launchers):
            if launcher is not None:
                launcher.close()
                self._launchers[slot] = None
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None


#: seconds past a run's deadline after which the runs still going are stopped
_DEADLINE_GRACE = 0.05


@dataclass
class _Task:
    """The work of one program within one :meth:`ProcessRunner.run`."""

    todo: list[int]
    in_flight: bool = False
    started: float = field(default_factory=time.monotonic)


class ProcessRunner:
    """Whole programs, each built once and served by its own sandboxed launcher."""

    def __init__(self, programs: Sequence[Program], *, limits: ProgramLimits = ProgramLimits(),
                 isolation: str | Isolation | None = None, checker: StdinProgram | None = None,
                 checker_limits: ProgramLimits = CHECKER_LIMITS, built: Sequence[BuiltProgram] | None = None) -> None:
        """``built``: the programs ready to run, one per program (for programs that need no build,
        such as commands); by default each program is built here (:func:`build_all`)."""
        self.programs = tuple(programs)
        self.limits = limits
        self.level = choose_level(isolation)
        self.executions = 0
        self.restarts = 0
        #: what the engines may learn from loading (nothing, for whole programs)
        self.runtime_constants: list = []
        #: facts the report should show (a failing checker)
        self.notes: list[str] = []
        self.checker_runs = 0
        self._checker_failures = 0
        self._launchers: list[LauncherProcess | None] = [None] * len(self.programs)
        self.checker: ProgramService | None = None
        #: closed (perhaps from another thread, under a run: the run then ends, its rest not run)
        self._closed = False
        try:
            self.built = self._build_all(checker, built)
            for index in range(len(self.programs)):
                self._launchers[index] = start_launcher(self.built[index], limits, self.level)
            if checker is not None:
                self.checker = ProgramService(checker, limits=checker_limits, level=self.level,
                                              built=self.built[-1])
                self.built = self.built[: len(self.programs)]
        except BaseException:
            self.close()
            raise

    def _build_all(self, checker: StdinProgram | None, built: Sequence[BuiltProgram] | None) -> list[BuiltProgram]:
        helpers = [checker] if checker is not None else []
        if built is not None:
            return [*built, *build_all(helpers, level=self.level, limits=self.limits)]
        return build_all([*self.programs, *helpers], level=self.level, limits=self.limits)  # type: ignore[list-item]

    @property
    def sandbox_pids(self) -> list[int]:
        """The process ids of the launchers' sandboxes (for measurements of CPU time)."""
        return [launcher.process.pid for launcher in self._launchers if launcher is not None]

    # -- running ------------------------------------------------------------------------------

    def run(
        self, inputs: Sequence[TextInput], *, deadline: float | None = None, timeout: float | None = None
    ) -> list[tuple[Outcome, ...] | None]:
        """Every input on every program; one tuple of outcomes per input (None: not run everywhere
        before ``deadline``, a ``time.monotonic()`` value). ``timeout`` is not used: a whole
        program's time limit is the judge's, fixed when the runner starts (``ProgramLimits``)."""
        if not inputs:
            return []
        jobs = [Job(stdin=item.text.encode("utf-8", "surrogateescape")) for item in inputs]
        count = len(self.programs)
        results: list[list[Outcome | None]] = [[None] * count for _ in inputs]
        tasks = {i: _Task(todo=list(range(len(inputs)))) for i in range(count)}
        with selectors.DefaultSelector() as selector:
            while tasks and not self._closed:
                for i, task in list(tasks.items()):
                    if task.in_flight:
                        continue
                    if deadline is not None and time.monotonic() >= deadline:
                        task.todo = []
                    if not task.todo:
                        del tasks[i]
                        continue
                    self._dispatch(i, task, jobs, selector, results, deadline)
                if not tasks:
                    break
                waiting = [self._launchers[i] for i, t in tasks.items() if t.in_flight]
                patience = min(
                    (launcher.batch.last_progress + launcher.patience for launcher in waiting
                     if launcher is not None and launcher.batch is not None),
                    default=time.monotonic(),
                )
                # (at most 0.1 s at a time: a close from another thread does not wake the selector)
                for key, _ in selector.select(min(0.1, max(0.0, patience - time.monotonic()))):
                    self._collect(key.data, tasks[key.data], results, selector)
                now = time.monotonic()
                if deadline is not None and now >= deadline + _DEADLINE_GRACE:
                    # A run started just before the deadline may take its whole time limit: it is
                    # stopped (its launcher replaced at the next dispatch), so the budget is kept.
                    for i, task in tasks.items():
                        if task.in_flight:
                            self._abandon(i, task, selector)
                    break
                for i, task in tasks.items():
                    launcher = self._launchers[i]
                    if task.in_flight and launcher is not None and launcher.batch is not None \
                            and now - launcher.batch.last_progress > launcher.patience:
                        self._fail(i, task, results, selector, hung=True)
        complete = [None if None in row else tuple(row) for row in results]
        self.executions += sum(len(row) - row.count(None) for row in results)
        if self.checker is not None and not self._closed:
            complete = self._judge(inputs, complete, deadline)
        return complete  # type: ignore[return-value]

    def _dispatch(self, i: int, task: _Task, jobs: list[Job], selector: selectors.BaseSelector,
                  results: list[list[Outcome | None]], deadline: float | None) -> None:
        launcher = self._launchers[i]
        if launcher is None:
            if self._closed:  # closed under the run
                task.todo = []
                return
            self._replace(i, "its last run was stopped at a deadline")
            launcher = self._launchers[i]
            assert launcher is not None
        chunk, task.todo = task.todo[:_CHUNK], task.todo[_CHUNK:]
        try:
            launcher.start([jobs[j] for j in chunk], chunk, deadline)
        except ChildGone:
            launcher.batch = None
            task.todo = [] if self._closed else chunk + task.todo
            if not self._closed:
                self._replace(i, f"{self.programs[i].label}: the launcher died")
            return
        task.in_flight = True
        selector.register(launcher.fileno(), selectors.EVENT_READ, i)

    def _collect(self, i: int, task: _Task, results: list[list[Outcome | None]],
                 selector: selectors.BaseSelector) -> None:
        launcher = self._launchers[i]
        if launcher is None:  # closed under the run
            task.in_flight = False
            return
        try:
            found, done = launcher.collect()
        except ChildGone:
            self._fail(i, task, results, selector, hung=False)
            return
        for index, result in found:
            results[index][i] = result.outcome()
        if done:
            selector.unregister(launcher.fileno())
            task.in_flight = False

    def _fail(self, i: int, task: _Task, results: list[list[Outcome | None]],
              selector: selectors.BaseSelector, *, hung: bool) -> None:
        launcher = self._launchers[i]
        if launcher is None or self._closed:  # closed under the run: what is left stays not run
            task.in_flight, task.todo = False, []
            return
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(launcher.fileno())
        unreported = launcher.unreported()
        patience = launcher.patience
        how = launcher.kill()
        if unreported:
            culprit = unreported.pop(0)
            result = ProgramRun.hung(patience) if hung else ProgramRun.crashed(how)
            results[culprit][i] = result.outcome()
        task.todo = unreported + task.todo
        task.in_flight = False
        self._replace(i, how)

    def _abandon(self, i: int, task: _Task, selector: selectors.BaseSelector) -> None:
        """Stop the launcher's batch past the deadline: what it had not reported stays not run."""
        launcher = self._launchers[i]
        task.in_flight = False
        if launcher is None:
            return
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(launcher.fileno())
        launcher.close()
        self._launchers[i] = None

    def _replace(self, i: int, why: str) -> None:
        old = self._launchers[i]
        if old is not None:
            old.close()
        if self._closed:
            raise SandboxUnavailable("the runner was closed")
        self.restarts += 1
        try:
            self._launchers[i] = start_launcher(self.built[i], self.limits, self.level)
        except SandboxUnavailable as error:
            raise SandboxUnavailable(f"{self.programs[i].label}: a new launcher did not start ({why}): {error}") from None

    # -- the checker ----------------------------------------------------------------------------

    def _judge(self, inputs: Sequence[TextInput], rows: list[tuple[Outcome, ...] | None],
               deadline: float | None) -> list[tuple[Outcome, ...] | None]:
        """Group each input's printed outputs by the checker's verdicts (``accepted_with``)."""
        states = [_Judging(item.text, list(row)) for item, row in zip(inputs, rows, strict=True) if row is not None]
        while True:
            pending = [(state, question) for state in states if (question := state.question()) is not None]
            if not pending:
                break
            jobs = [
                Job(stdin=b"", args=("input.txt", "output.txt", "answer.txt"), files=(
                    ("input.txt", state.text.encode("utf-8", "surrogateescape")),
                    ("output.txt", state.outcomes[candidate].stdout.encode("utf-8", "surrogateescape")),
                    ("answer.txt", state.outcomes[representative].stdout.encode("utf-8", "surrogateescape")),
                ))
                for state, (candidate, representative) in pending
            ]
            assert self.checker is not None
            verdicts = self.checker.run(jobs, deadline=None)
            self.checker_runs += len(jobs)
            for (state, _question), verdict in zip(pending, verdicts, strict=True):
                if verdict is not None and verdict.kind not in (OutcomeKind.OK, OutcomeKind.RUNTIME_ERROR):
                    self._checker_failed(verdict)
                state.answer(verdict is not None and verdict.ok, _checker_message(verdict))
        judged = iter(states)
        return [None if row is None else tuple(next(judged).outcomes) for row in rows]

    def _checker_failed(self, verdict: ProgramRun) -> None:
        self._checker_failures += 1
        if self._checker_failures == 1:
            label = self.checker.label if self.checker else "the checker"
            self.notes.append(f"checker {label} failed ({verdict.kind.value}: {verdict.detail}); "
                              "its verdict counts as a rejection")

    def close(self) -> None:
        self._closed = True
        for launcher in self._launchers:
            if launcher is not None:
                launcher.close()
        self._launchers = [None] * len(self.programs)
        if self.checker is not None:
            self.checker.close()

    def __enter__(self) -> ProcessRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _checker_message(verdict: ProgramRun | None) -> str:
    if verdict is None:
        return "checker: not run"
    text = (verdict.stderr or verdict.stdout).strip().splitlines()
    first = text[0][:200] if text else verdict.detail
    return f"checker: {first}" if first else ""


class _Judging:
    """One input's outputs being grouped by the checker, one question at a time."""

    def __init__(self, text: str, outcomes: list[Outcome]) -> None:
        self.text = text
        self.outcomes = outcomes
        printed = [i for i, o in enumerate(outcomes) if o.kind is OutcomeKind.OK]
        self.representatives: list[int] = printed[:1]
        if printed:
            outcomes[printed[0]] = replace(outcomes[printed[0]], accepted_with=printed[0])
        self.queue = printed[1:]
        self.position = 0  # which representative the head of the queue is checked against next

    def question(self) -> tuple[int, int] | None:
        """(candidate, representative) to ask the checker about, or None when done."""
        while self.queue:
            candidate = self.queue[0]
            if self.position >= len(self.representatives):
                self._settle(candidate, candidate, "")
                continue
            representative = self.representatives[self.position]
            if self.outcomes[candidate].stdout == self.outcomes[representative].stdout:
                self._settle(candidate, representative, "")
                continue
            return candidate, representative
        return None

    def answer(self, accepted: bool, message: str) -> None:
        candidate = self.queue[0]
        if accepted:
            self._settle(candidate, self.representatives[self.position], "")
        else:
            self.position += 1
            if self.position >= len(self.representatives):
                self._settle(candidate, candidate, message)

    def _settle(self, candidate: int, representative: int, message: str) -> None:
        if representative == candidate:
            self.representatives.append(candidate)
        self.outcomes[candidate] = replace(self.outcomes[candidate], accepted_with=representative,
                                           detail=message or self.outcomes[candidate].detail)
        self.queue.pop(0)
        self.position = 0
