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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from divergent.bench.benchmark import Workbench, Worked
from divergent.bench.common import Item, ItemProgress, RunPlan, run_plan
from divergent.bench.refute.dataset import RefuteData, RefuteTask
from divergent.bench.refute.strategies import Context, RefuteStrategy
from divergent.errors import InvalidArgument, LLMUnavailable, SandboxUnavailable
from divergent.store import RunRecord

__all__ = ["FATAL_ERRORS", "KIND", "AttemptSolver", "RefuteConfig", "RefuteRun", "data_digest", "run_parameters",
           "run_refute", "unit_key"]

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


@dataclass(frozen=True)
class RefuteConfig:
    """A REFUTE run's options: the rows, the strategies and what they work with, the selection."""

    data: RefuteData
    strategies: Sequence[RefuteStrategy]
    #: the strategies' runner, rules, model, prompts and limits
    context: Context
    #: what ties the runs to the data (:func:`data_digest`)
    digest: str
    #: attempts per problem (pass@k)
    attempts: int = 1
    #: only these problem ids, only the first ``limit`` problems
    problems: Sequence[str] | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise InvalidArgument(f"--attempts {self.attempts}: must be >= 1")
        if not self.strategies:
            raise InvalidArgument("no strategy to run")


@dataclass
class RefuteRun(Worked):
    """What :func:`run_refute` did: the stored run of each strategy and how it went (``run`` and
    ``progress``: the last strategy's)."""

    tasks: list[RefuteTask] = field(default_factory=list)
    #: problems left out, with the reason (an unknown language, no validator, ...)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    attempts: int = 1
    runs: dict[str, RunRecord] = field(default_factory=dict)
    by_strategy: dict[str, ItemProgress] = field(default_factory=dict)
    #: why the run stopped early (a fatal error: "strategy: message"), else None
    stopped: str | None = None


def run_refute(config: RefuteConfig, bench: Workbench) -> RefuteRun:
    """Run (or resume) every strategy on the selected problems, ``config.attempts`` times each.

    Rows that cannot be benchmarked are skipped and listed; a strategy that needs a model without
    one is an error before anything runs. A fatal error (the endpoint is down) stops that
    strategy's run, and the later strategies do not start. The attempts run on the workbench's
    executor; on a cluster, the model is served to the workers by it. The progress of each
    strategy carries its name (``ItemProgress.label``)."""
    context = config.context
    needing = [s.name for s in config.strategies if s.needs_model]
    if needing and context.chat is None:
        raise InvalidArgument(f"--strategy {', '.join(needing)} needs a model: pass --model (divergent runs without)")
    tasks, skipped = [], []
    for task in config.data.select(config.problems, config.limit):
        why = task.unusable(require_validator=context.rules.require_validator)
        if why is None:
            tasks.append(task)
        else:
            skipped.append((task.problem_id, why))
    runs: dict[str, RunRecord] = {}
    by_strategy: dict[str, ItemProgress] = {}
    stopped = None
    shared = replace(context, chat=bench.executor.serve_model(context.chat)) if context.chat is not None else context
    for strategy in config.strategies:
        dataset = [Item(unit_key(task.problem_id, attempt), (task, attempt))
                   for task in tasks for attempt in range(config.attempts)]
        by_strategy[strategy.name] = ItemProgress(label=strategy.name)
        parameters = run_parameters(strategy, context, config.digest)
        plan = RunPlan(KIND, parameters, dataset, AttemptSolver(strategy, shared), FATAL_ERRORS)
        try:
            runs[strategy.name], _ = run_plan(bench.store, plan, executor=bench.executor,
                                              on_progress=bench.on_progress, progress=by_strategy[strategy.name])
        except FATAL_ERRORS as error:
            found = bench.store.find_run(KIND, parameters)
            if found is not None:
                runs[strategy.name] = found
            stopped = f"{strategy.name}: {error}"
            break
    if not runs:  # the first strategy could not even open its run
        raise InvalidArgument(f"nothing ran: {stopped}")
    last = list(runs)[-1]
    return RefuteRun(runs[last], by_strategy[last], tasks=tasks, skipped=skipped, attempts=config.attempts, runs=runs,
                     by_strategy=by_strategy, stopped=stopped)
