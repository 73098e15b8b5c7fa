"""An incoherence study: tasks × recorded samples → stored units → the paper's metrics per model.

``run_study`` finds (or creates) the stored run for the same parameters, skips the units it already
has, runs the rest (``jobs`` tasks at a time) and saves each unit when it is done; ``summarize``
computes every metric from the stored units alone, so a stored run can be shown again without
running anything.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from divergent.bench.benchmark import Benchmark, Workbench, Worked
from divergent.bench.common import Item, ItemProgress, RunPlan, open_run, results_envelope, run_plan, settled
from divergent.datasets import (
    CandidateSet,
    CandidateSource,
    format_model_spec,
    load_candidates,
    load_tasks,
    parse_model_spec,
)
from divergent.datasets.jobs import JobPayload, TaskJob, unit_key
from divergent.errors import InvalidArgument
from divergent.incoherence.difftrust import DIFFTRUST_POLICY
from divergent.incoherence.inputs import GEN_D, InputMode
from divergent.incoherence.metrics import (
    ModelMetrics,
    RankingAgreement,
    TaskMetrics,
    aggregate,
    ranking_agreement,
    task_metrics,
)
from divergent.incoherence.run import TaskMeasurer, UnitResult, Validity
from divergent.policy import DEFAULT_POLICY
from divergent.sandbox.limits import Limits
from divergent.store import RunRecord, Store

KIND = "incoherence"


@dataclass
class StudyProgress(ItemProgress):
    """The resumable loop's progress, with what loading the samples skipped."""

    skipped_lines: int = 0
    #: samples for task ids the benchmark does not have
    unknown_tasks: int = 0


@dataclass(frozen=True)
class StudyConfig:
    tasks: str
    samples: str
    models: tuple[tuple[str, float], ...] | None = None
    m: int = 10
    n: int = 1000
    seed: int = 0
    #: AUTO: the artifact's GT_RAISES under compat "difftrust", else each task's own rule
    validity: Validity = Validity.AUTO
    #: "default" (divergent's equality policy) or "difftrust" (the artifact's comparison)
    compat: str = "default"
    timeout: float = 2.0
    limit_tasks: int | None = None
    #: wall seconds per task (all models together); a task over it is recorded as failed and left
    #: out, as the artifact left out tasks over its 60 s limit (None: no limit)
    task_budget: float | None = None
    #: Gen(d) as n draws (repeats kept, each distinct input run once) or as n distinct inputs
    inputs: InputMode = InputMode.DRAWS
    #: the sandbox level (None: the strongest available); not part of a run's identity
    isolation: str | None = None
    #: programs sampled from a model (in this process: only the measuring goes to the executor) in
    #: place of the recorded ``samples``; its model and temperature are the run's ``models``
    live: CandidateSource | None = None

    def __post_init__(self) -> None:
        if self.m < 2:
            raise InvalidArgument(f"-m {self.m}: incoherence needs at least 2 samples per task")
        if self.n < 1:
            raise InvalidArgument(f"-n {self.n}: need at least 1 input per task")
        if self.compat not in ("default", "difftrust"):
            raise InvalidArgument(f"--compat {self.compat!r}: choose default or difftrust")

    def parameters(self) -> dict[str, Any]:
        """What identifies a run (a rerun with the same parameters resumes it)."""
        return {
            "tasks": self.tasks,
            # "" with a live source (``live``): the model and temperature are in models
            "samples": str(Path(self.samples).resolve()) if self.samples else "live",
            "models": sorted(format_model_spec(m, t) for m, t in self.models) if self.models else None,
            "m": self.m,
            "n": self.n,
            "seed": self.seed,
            # the rule in force: an AUTO run under compat difftrust is the same run as a GT_RAISES one
            "validity": self.effective_validity.value,
            "compat": self.compat,
            "timeout": self.timeout,
            "limit_tasks": self.limit_tasks,
            # only when set, so runs stored before this option existed still resume
            **({"task_budget": self.task_budget} if self.task_budget is not None else {}),
            # always present: runs stored before it used another Gen(d) and must not be resumed
            "inputs": self.inputs.value,
            # which Gen(d) drew them: a run stored with another is shown, never resumed with these
            "gen_d": GEN_D,
        }

    @property
    def effective_validity(self) -> Validity:
        """The validity rule passed to the tasks: the artifact dropped every input on which the
        ground truth raised, so compat "difftrust" makes AUTO mean GT_RAISES on every benchmark;
        otherwise AUTO is resolved per task (:meth:`Validity.for_task`)."""
        if self.validity is Validity.AUTO and self.compat == "difftrust":
            return Validity.GT_RAISES
        return self.validity

    @property
    def policy(self) -> Any:
        return DIFFTRUST_POLICY if self.compat == "difftrust" else DEFAULT_POLICY


def run_study(config: StudyConfig, bench: Workbench) -> Worked:
    """Run (or resume) the study; every finished unit is in the store when this returns or is killed.

    Each task is one item of the benchmarks' resumable loop (:func:`divergent.bench.common.run_plan`),
    filling one unit per model, worked on the workbench's executor; ``config.live`` samples the
    programs from a model instead of reading ``config.samples``.

    Returns the run and what happened on the way (a :class:`StudyProgress`: skipped lines, unknown
    task ids, failures)."""
    store, live = bench.store, config.live
    tasks = load_tasks(config.tasks)
    if config.limit_tasks is not None:
        tasks = type(tasks)(tasks[: config.limit_tasks], problems=tasks.problems)
    candidates: CandidateSet
    if live is not None:
        candidates = CandidateSet()  # nothing recorded: the live source answers per task below
    else:
        candidates = load_candidates(config.samples, tasks, models=config.models, per_task=config.m)
    progress = StudyProgress(
        skipped_lines=len(candidates.problems) + len(tasks.problems),
        unknown_tasks=sum(candidates.unknown_task_ids.values()),
    )
    progress.messages.extend(f"{p.path}:{p.line_number}: {p.message}" for p in [*tasks.problems, *candidates.problems][:20])
    run, saved = open_run(store, KIND, config.parameters())
    dataset: list[Item[JobPayload]] = []
    # (sampling live can fail here, before the loop: the run is then marked failed, not left running)
    with settled(store, run):
        for task in tasks:
            by_model = {}
            configurations = [parse_model_spec(live.label)] if live is not None else candidates.configurations()
            for model, temperature in configurations:
                if config.models and (model, temperature) not in config.models:
                    continue
                key = unit_key(model, temperature, task.task_id)
                if key in saved:  # counted here; the loop counts the units it is given
                    progress.total += 1
                    progress.done += 1
                    progress.resumed += 1
                    continue
                source = live if live is not None else candidates.source(model, temperature)
                chosen = source.candidates(task, config.m)
                if len(chosen) >= 2:
                    by_model[(model, temperature)] = chosen
                else:
                    progress.messages.append(f"{key}: fewer than 2 samples; skipped")
            if by_model:
                job = TaskJob(task=task, candidates=by_model)
                dataset.append(Item(task.task_id, JobPayload.pack(job),
                                    units=tuple(unit_key(m, t, task.task_id) for m, t in by_model)))
    solver = TaskMeasurer(n=config.n, seed=config.seed, policy=config.policy, limits=Limits(timeout=config.timeout),
                          validity=config.effective_validity, isolation=config.isolation, task_budget=config.task_budget,
                          input_mode=config.inputs)

    def split(item: Item[JobPayload], result: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        units = [UnitResult.from_json(unit) for unit in result["units"]]
        return {unit_key(unit.model, unit.temperature, item.key): unit.to_json() for unit in units}

    plan = RunPlan(KIND, config.parameters(), dataset, solver, split=split)
    record, _ = run_plan(store, plan, executor=bench.executor, on_progress=bench.on_progress, opened=(run, saved),
                         progress=progress)
    return Worked(record, progress)


@dataclass(frozen=True)
class ModelSummary:
    model: str
    temperature: float | None
    metrics: ModelMetrics
    tasks: tuple[TaskMetrics, ...]


@dataclass(frozen=True)
class StudySummary:
    run: RunRecord
    models: tuple[ModelSummary, ...]
    ranking: RankingAgreement | None
    failed_units: int


def summarize(store: Store, run: RunRecord) -> StudySummary:
    """Every metric, from the stored units alone (nothing runs)."""
    seed = int(run.parameters.get("seed", 0))
    by_model: dict[tuple[str, float | None], list[TaskMetrics]] = {}
    failed = 0
    for unit in store.units(run.id):
        if unit.state != "done":
            failed += 1
            continue
        result = UnitResult.from_json(unit.result)
        if not result.labels:
            failed += 1
            continue
        metrics = task_metrics(result.labels, result.gt_labels, seed=seed, task_id=result.task_id)
        by_model.setdefault((result.model, result.temperature), []).append(metrics)
    models = tuple(
        ModelSummary(model=m, temperature=t, metrics=aggregate(sorted(tasks, key=lambda x: x.task_id)),
                     tasks=tuple(sorted(tasks, key=lambda x: x.task_id)))
        for (m, t), tasks in sorted(by_model.items(), key=lambda item: (item[0][0], item[0][1] or 0.0))
    )
    ranking = None
    if len(models) > 1:
        ranking = ranking_agreement({format_model_spec(s.model, s.temperature): s.metrics for s in models})
    return StudySummary(run=run, models=models, ranking=ranking, failed_units=failed)


def _number(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(value, 6)


def summary_json(summary: StudySummary) -> dict[str, Any]:
    """The ``--json`` document: the benchmarks' envelope (:func:`divergent.bench.common.results_envelope`),
    whose summary has one entry per model and temperature and ``ranking_spearman``, and whose items
    are the (model, task) units. ``models``, ``ranking_spearman`` and ``failed_units`` are also at
    the top, where readers of the first shape of this document find them."""
    models = [
        {
            "model": s.model,
            "temperature": s.temperature,
            "mean_error": _number(s.metrics.mean_error),
            "mean_incoherence": _number(s.metrics.mean_incoherence),
            "pass_at_1": _number(s.metrics.pass_at_1),
            "spearman": _number(s.metrics.error_incoherence_spearman),
            "detection_rate": _number(s.metrics.detection_rate),
            "undetected_mean_error": _number(s.metrics.undetected_mean_error),
            "tasks": [
                {"task_id": t.task_id, "error": _number(t.error), "incoherence": _number(t.incoherence)}
                for t in s.tasks
            ],
        }
        for s in summary.models
    ]
    headline = {
        "models": models,
        "ranking_spearman": _number(summary.ranking.ranking_spearman) if summary.ranking else None,
        "failed_units": summary.failed_units,
    }
    items = [{"key": unit_key(entry["model"], entry["temperature"], task["task_id"]), "model": entry["model"],
              "temperature": entry["temperature"], **task} for entry in models for task in entry["tasks"]]
    return {**results_envelope("incoherence", summary.run, summary=headline, items=items), **headline}



INCOHERENCE: Benchmark[StudyConfig, StudySummary] = Benchmark(
    name="incoherence", title="incoherence", kinds=(KIND,), options=StudyConfig, work=run_study,
    summarize=summarize, document=summary_json, page="divergent.report.html:incoherence_page",
)
