"""A REFUTE run: strategies × problems × attempts, each attempt a unit of the store.

Each strategy has its own stored run (kind ``refute``), identified by what decides its results: the
data (by content), the strategy, the success rule's settings, the seed, and for the strategies
that ask a model the model, temperature, token limit and prompts (``divergent``'s results do not
depend on the model, so they are shared by runs with any). Which problems and how many attempts
are a selection, not part of the identity: asking for more attempts, or more problems, later does
only the units that are missing. A unit is ``<problem>/<attempt>``; a killed run resumes where it
stopped, and a rerun of a finished one runs nothing (and asks the model nothing). An attempt whose
work raised is stored as that unit's error (a row whose code does not build, say); an error that
dooms every attempt (:data:`FATAL_ERRORS`: the endpoint is down or refuses the key, the sandbox
cannot start) stops the run, and the later strategies do not start.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from divergent.bench.common import Item, ItemProgress, RunPlan, run_plan
from divergent.bench.refute.dataset import RefuteData, RefuteTask
from divergent.bench.refute.strategies import Context, RefuteStrategy
from divergent.errors import InvalidArgument, LLMUnavailable, SandboxUnavailable
from divergent.executors.base import Executor, ThreadExecutor
from divergent.store import RunRecord, Store

__all__ = ["FATAL_ERRORS", "KIND", "AttemptSolver", "RefuteRun", "data_digest", "run_parameters", "run_refute", "unit_key"]

KIND = "refute"
#: errors that doom every attempt: the run stops at the first one (what was saved stays)
FATAL_ERRORS: tuple[type[BaseException], ...] = (LLMUnavailable, SandboxUnavailable)


def data_digest(path: Path | str) -> str:
    """sha256 of the data's bytes (of every data file, for a directory): a run is tied to its data."""
    root = Path(path)
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
    digest = hashlib.sha256()
    for file in files:
        digest.update(str(file.relative_to(root) if root.is_dir() else file.name).encode() + b"\0")
        with file.open("rb") as stream:
            for block in iter(lambda s=stream: s.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def unit_key(problem_id: str, attempt: int) -> str:
    return f"{problem_id}/{attempt}"


def run_parameters(strategy: RefuteStrategy, context: Context, digest: str) -> dict[str, Any]:
    """What identifies the stored run of ``strategy``."""
    parameters: dict[str, Any] = {
        "data": digest,
        "strategy": strategy.name,
        "rules": context.rules.parameters(),
        "seed": context.seed,
    }
    if strategy.needs_model:
        assert context.chat is not None
        parameters.update(model=context.chat.model, temperature=context.temperature,
                          max_tokens=context.max_tokens, prompts=context.prompts.fingerprint)
    if strategy.name.startswith("randsearch"):
        parameters["loop_seconds"] = context.loop_seconds
    if strategy.name in ("divergent", "hybrid"):
        parameters["search_seconds"] = context.search_seconds
    if strategy.name == "agent":
        limits = context.agent
        parameters["agent"] = {"max_runs": limits.max_runs, "output_chars": limits.output_chars,
                               "run_seconds": limits.run_seconds, "max_resubmissions": limits.max_resubmissions}
    return parameters


@dataclass(frozen=True)
class AttemptSolver:
    """The solver of a strategy's run: one attempt on one problem → its stored result."""

    strategy: RefuteStrategy
    context: Context

    def __call__(self, payload: tuple[RefuteTask, int]) -> dict[str, Any]:
        task, attempt = payload
        outcome = self.strategy.attempt(task, attempt, self.context)
        return {"strategy": self.strategy.name, "problem_id": task.problem_id, "attempt": attempt,
                **outcome.to_json()}


@dataclass
class RefuteRun:
    """What :func:`run_refute` did: the stored run of each strategy and how it went."""

    tasks: list[RefuteTask]
    #: problems left out, with the reason (an unknown language, no validator, ...)
    skipped: list[tuple[str, str]]
    attempts: int
    runs: dict[str, RunRecord] = field(default_factory=dict)
    progress: dict[str, ItemProgress] = field(default_factory=dict)
    #: why the run stopped early (a fatal error: "strategy: message"), else None
    stopped: str | None = None


def run_refute(
    store: Store,
    data: RefuteData,
    strategies: Sequence[RefuteStrategy],
    context: Context,
    *,
    digest: str,
    attempts: int = 1,
    problems: Sequence[str] | None = None,
    limit: int | None = None,
    jobs: int = 1,
    on_progress: Callable[[str, ItemProgress], None] | None = None,
    executor: Executor | None = None,
) -> RefuteRun:
    """Run (or resume) every strategy on the selected problems, ``attempts`` times each.

    Rows that cannot be benchmarked are skipped and listed; a strategy that needs a model without
    one is an error before anything runs. A fatal error (the endpoint is down) stops that
    strategy's run, and the later strategies do not start. The attempts run on ``executor``
    (default: ``jobs`` threads); on a cluster, the model is served to the workers by it."""
    if attempts < 1:
        raise InvalidArgument(f"--attempts {attempts}: must be >= 1")
    if not strategies:
        raise InvalidArgument("no strategy to run")
    needing = [s.name for s in strategies if s.needs_model]
    if needing and context.chat is None:
        raise InvalidArgument(f"--strategy {', '.join(needing)} needs a model: pass --model (divergent runs without)")
    selected = data.select(problems, limit)
    tasks, skipped = [], []
    for task in selected:
        why = task.unusable(require_validator=context.rules.require_validator)
        if why is None:
            tasks.append(task)
        else:
            skipped.append((task.problem_id, why))
    result = RefuteRun(tasks=tasks, skipped=skipped, attempts=attempts)
    work_on = executor if executor is not None else ThreadExecutor(jobs)
    shared = replace(context, chat=work_on.serve_model(context.chat)) if context.chat is not None else context
    for strategy in strategies:
        dataset = [Item(unit_key(task.problem_id, attempt), (task, attempt))
                   for task in tasks for attempt in range(attempts)]

        def progress(state: ItemProgress, name: str = strategy.name) -> None:
            result.progress[name] = state
            if on_progress is not None:
                on_progress(name, state)

        parameters = run_parameters(strategy, context, digest)
        plan = RunPlan(KIND, parameters, dataset, AttemptSolver(strategy, shared), FATAL_ERRORS)
        try:
            run, _ = run_plan(store, plan, executor=work_on, on_progress=progress)
        except FATAL_ERRORS as error:
            found = store.find_run(KIND, parameters)
            if found is not None:
                result.runs[strategy.name] = found
            result.stopped = f"{strategy.name}: {error}"
            break
        result.runs[strategy.name] = run
    return result
