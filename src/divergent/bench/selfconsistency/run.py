"""Semantic self-consistency over many tasks: a stored, resumable run on the benchmarks' loop.

The dataset is one item per (model, task): that model's first ``m`` recorded samples of the task
(read by :func:`divergent.datasets.load_candidates`, the incoherence study's loader), shipped as
the study's compact :class:`~divergent.datasets.jobs.JobPayload`; the solver is
:class:`~divergent.bench.selfconsistency.solve.SampleClusterer`; each unit is saved as soon as it is
back, on threads or on a Ray cluster (:func:`divergent.bench.common.run_plan`), so a killed run
resumes with the tasks it finished. :func:`summarize` scores a run from its stored units alone:
per model, the mean pass@1 of the pick against a random sample's, over the tasks with tests.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from divergent.bench.benchmark import Benchmark, Workbench, Worked
from divergent.bench.common import (
    Item,
    ItemProgress,
    RunPlan,
    results_envelope,
    run_plan,
    stored_results,
)
from divergent.bench.selfconsistency.solve import ClusterSettings, SampleClusterer
from divergent.datasets import format_model_spec, load_candidates, load_tasks, parse_model_spec
from divergent.datasets.jobs import JobPayload, TaskJob, unit_key
from divergent.errors import InvalidArgument
from divergent.store import RunRecord, Store

__all__ = [
    "KIND",
    "SELFCONSISTENCY",
    "ModelScore",
    "SelfConsistencyConfig",
    "SelfConsistencySummary",
    "run_selfconsistency",
    "summarize",
    "summary_json",
]

KIND = "bench-selfconsistency"


@dataclass(frozen=True)
class SelfConsistencyConfig:
    #: humaneval, mbpp, mbpp-full or a tasks file (:func:`divergent.datasets.load_tasks`)
    tasks: str
    #: recorded samples: candidate JSONL (gzip too) or directories (:func:`divergent.datasets.load_candidates`)
    samples: str
    #: (model, temperature) pairs to cluster; None: every configuration in the samples
    models: tuple[tuple[str, float], ...] | None = None
    #: samples per task
    m: int = 10
    limit_tasks: int | None = None
    settings: ClusterSettings = field(default_factory=ClusterSettings)

    def __post_init__(self) -> None:
        if self.m < 2:
            raise InvalidArgument(f"-m {self.m}: clustering needs at least 2 samples per task")
        if self.limit_tasks is not None and self.limit_tasks < 1:
            raise InvalidArgument(f"--limit-tasks {self.limit_tasks}: need at least 1")

    def parameters(self) -> dict[str, Any]:
        """What identifies a run (a rerun with the same parameters resumes it)."""
        settings = self.settings
        return {
            "tasks": self.tasks,
            "samples": str(Path(self.samples).resolve()),
            "models": sorted(format_model_spec(m, t) for m, t in self.models) if self.models else None,
            "m": self.m,
            "limit_tasks": self.limit_tasks,
            "budget": settings.budget,
            "seed": settings.seed,
            "timeout": settings.timeout,
            "engines": list(settings.engines) if settings.engines else None,
        }


def run_selfconsistency(config: SelfConsistencyConfig, bench: Workbench) -> Worked:
    """Run (or resume) the harness; every finished (model, task) is in the store when this returns or
    is killed. Returns the run and what happened on the way (skipped lines, failures)."""
    tasks = load_tasks(config.tasks)
    candidates = load_candidates(config.samples, tasks, models=config.models, per_task=config.m)
    if config.limit_tasks is not None:  # the first N tasks that can be scored: those with samples to cluster
        scored = [task for task in tasks
                  if any(len(source.candidates(task, config.m)) >= 2 for source in candidates.sources.values())]
        tasks = type(tasks)(scored[: config.limit_tasks], problems=tasks.problems)
    progress = ItemProgress()
    problems = [*tasks.problems, *candidates.problems]
    progress.messages.extend(f"{p.path}:{p.line_number}: {p.message}" for p in problems[:20])
    if len(problems) > 20:
        progress.messages.append(f"... and {len(problems) - 20} more malformed line(s)")
    unknown = sum(candidates.unknown_task_ids.values())
    if unknown:
        progress.messages.append(f"{unknown} sample(s) for task ids the benchmark does not have: skipped")
    if not any(len(source.candidates(task, config.m)) >= 2 for source in candidates.sources.values() for task in tasks):
        raise InvalidArgument(f"no task of {config.tasks} has 2 or more samples in {config.samples}")
    dataset: list[Item[JobPayload]] = []
    for model, temperature in candidates.configurations():
        source = candidates.source(model, temperature)
        without = 0
        for task in tasks:
            key = unit_key(model, temperature, task.task_id)
            chosen = source.candidates(task, config.m)
            if not chosen:
                without += 1
            elif len(chosen) < 2:
                progress.messages.append(f"{key}: 1 sample; skipped (clustering needs 2)")
            else:
                job = TaskJob(task=task, candidates={(model, temperature): chosen})
                dataset.append(Item(key, JobPayload.pack(job)))
        if without:
            progress.messages.append(f"{format_model_spec(model, temperature)}: no samples of {without} task(s); "
                                     "left out")
    plan = RunPlan(KIND, config.parameters(), dataset, SampleClusterer(config.settings))
    record, _ = run_plan(bench.store, plan, executor=bench.executor, on_progress=bench.on_progress, progress=progress)
    return Worked(record, progress)


# -- the scorer ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelScore:
    """One model's figures over its scored tasks (those with tests)."""

    model: str
    temperature: float | None
    #: units stored (done), and those of them with tests
    tasks: int
    scored: int
    #: mean pass@1 of the self-consistency pick, and of a random sample
    pass_at_1: float | None
    baseline_pass_at_1: float | None
    #: tasks where the pick did better, worse, as well as a random sample
    better: int
    worse: int
    same: int
    #: tasks whose largest class was tied with another
    tied: int
    #: tasks where every sample stayed in one class
    one_class: int
    mean_classes: float | None
    #: tasks whose clustering could not run (stored as errors)
    failed: int
    #: tasks whose pick was made on fewer judged inputs than the floor (``thin``)
    thin: int = 0


@dataclass(frozen=True)
class SelfConsistencySummary:
    run: RunRecord
    models: tuple[ModelScore, ...]
    units: dict[str, dict[str, Any]]
    errors: dict[str, str]


def summarize(store: Store, run: RunRecord) -> SelfConsistencySummary:
    """Every figure, from the stored units alone (nothing runs)."""
    if run.kind != KIND:
        raise InvalidArgument(f"run {run.short_id} is a {run.kind} run, not a self-consistency run")
    units, errors = stored_results(store, run)
    groups: dict[tuple[str, float | None], list[dict[str, Any]]] = {}
    for unit in units.values():
        groups.setdefault((unit["model"], unit["temperature"]), []).append(unit)
    # A failed unit's key is its model's spec, "/", its task id (which may hold "/" too).
    known = {format_model_spec(*key) for key in groups} | set(run.parameters.get("models") or [])
    failed: dict[str, int] = {}
    for key in errors:
        spec = max((s for s in known if key.startswith(s + "/")), key=len, default=key.split("/", 1)[0])
        failed[spec] = failed.get(spec, 0) + 1
    for spec in failed:
        if spec not in {format_model_spec(*key) for key in groups}:
            try:
                groups[parse_model_spec(spec)] = []  # every task of this model failed
            except InvalidArgument:
                groups[(spec, None)] = []
    models = []
    for (model, temperature), group in sorted(groups.items(), key=lambda item: (item[0][0], item[0][1] or 0.0)):
        scored = [u for u in group if u.get("pass_at_1") is not None and u.get("baseline_pass_at_1") is not None]
        picks = [u["pass_at_1"] for u in scored]
        baselines = [u["baseline_pass_at_1"] for u in scored]
        models.append(ModelScore(
            model=model, temperature=temperature, tasks=len(group), scored=len(scored),
            pass_at_1=statistics.fmean(picks) if picks else None,
            baseline_pass_at_1=statistics.fmean(baselines) if baselines else None,
            better=sum(p > b + 1e-12 for p, b in zip(picks, baselines, strict=True)),
            worse=sum(p < b - 1e-12 for p, b in zip(picks, baselines, strict=True)),
            same=sum(abs(p - b) <= 1e-12 for p, b in zip(picks, baselines, strict=True)),
            tied=sum(bool(u.get("tied")) for u in group),
            one_class=sum(len(u.get("classes") or []) == 1 for u in group),
            mean_classes=statistics.fmean(len(u.get("classes") or []) for u in group) if group else None,
            failed=failed.pop(format_model_spec(model, temperature), 0),
            thin=sum(bool(u.get("thin")) for u in group),
        ))
    return SelfConsistencySummary(run=run, models=tuple(models), units=units, errors=errors)


def _number(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(value, 6)


def summary_json(summary: SelfConsistencySummary) -> dict[str, Any]:
    """The ``--json`` document: the benchmarks' envelope; its summary has one entry per model, its
    items are the (model, task) units as stored (classes as positions among the samples, whose
    recorded indices are ``indices``), and the failed ones with their error."""
    models = [
        {"model": s.model, "temperature": s.temperature, "tasks": s.tasks, "scored": s.scored,
         "pass_at_1": _number(s.pass_at_1), "baseline_pass_at_1": _number(s.baseline_pass_at_1),
         "gain": _number(s.pass_at_1 - s.baseline_pass_at_1)
         if s.pass_at_1 is not None and s.baseline_pass_at_1 is not None else None,
         "better": s.better, "worse": s.worse, "same": s.same, "tied": s.tied, "one_class": s.one_class,
         "mean_classes": _number(s.mean_classes), "failed": s.failed, "thin": s.thin}
        for s in summary.models
    ]
    items: list[dict[str, Any]] = [{"key": key, **unit} for key, unit in sorted(summary.units.items())]
    items += [{"key": key, "error": error} for key, error in sorted(summary.errors.items())]
    return results_envelope("selfconsistency", summary.run,
                            summary={"models": models, "failed_units": len(summary.errors)}, items=items)



SELFCONSISTENCY: Benchmark[SelfConsistencyConfig, SelfConsistencySummary] = Benchmark(
    name="selfconsistency", title="self-consistency", kinds=(KIND,), options=SelfConsistencyConfig,
    work=run_selfconsistency, summarize=summarize, document=summary_json,
    page="divergent.bench.selfconsistency.html:selfconsistency_page",
)
