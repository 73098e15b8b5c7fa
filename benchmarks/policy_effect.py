"""How divergent's own comparison changes the incoherence numbers next to the artifact's.

Runs (or resumes) two incoherence studies on the same HumanEval tasks and samples: the
artifact-compatible one (``--compat difftrust --validity gt-raises``) and divergent's defaults
(``--compat default --validity gt-timeout``), then prints, per model, mean error, mean incoherence
and detection rate under both, over the tasks both measured.

Usage::

    python benchmarks/policy_effect.py [--limit-tasks 60] [--jobs 2] [--db PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from divergent.bench.benchmark import Workbench
from divergent.executors.base import ThreadExecutor
from divergent.incoherence.metrics import aggregate
from divergent.incoherence.run import Validity
from divergent.incoherence.study import StudyConfig, run_study, summarize
from divergent.store import Store
from reproduce_difftrust import DATA, MODELS, fmt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-tasks", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--task-budget", type=float, default=120.0)
    parser.add_argument("--db", default=None)
    options = parser.parse_args()
    models = tuple((name, 0.6) for name in MODELS)
    summaries = {}
    with Store(options.db) as store:
        for compat, validity in (("difftrust", Validity.GT_RAISES), ("default", Validity.GT_TIMEOUT)):
            config = StudyConfig(
                tasks="humaneval", samples=str(DATA / "candidates_HumanEval.jsonl.gz"), models=models,
                validity=validity, compat=compat, limit_tasks=options.limit_tasks, task_budget=options.task_budget,
            )
            started = time.monotonic()
            run = run_study(config, Workbench(store, ThreadExecutor(options.jobs))).run
            print(f"{compat:9} run {run.short_id}: {time.monotonic() - started:.0f} s this invocation")
            summaries[compat] = {s.model: s for s in summarize(store, run).models}
    print(f"{'model':24} tasks  err compat default   diff | inc compat default   diff | det compat default   diff")
    for model in summaries["difftrust"]:
        compat_tasks = {t.task_id: t for t in summaries["difftrust"][model].tasks}
        default_tasks = {t.task_id: t for t in summaries["default"][model].tasks}
        shared = sorted(compat_tasks.keys() & default_tasks.keys())
        ours = aggregate([default_tasks[t] for t in shared])
        artifact_like = aggregate([compat_tasks[t] for t in shared])
        cells = []
        for field in ("mean_error", "mean_incoherence", "detection_rate"):
            before, after = getattr(artifact_like, field), getattr(ours, field)
            diff = None if before is None or after is None else after - before
            cells.append(f"{fmt(before)} {fmt(after)} {fmt(diff)}")
        print(f"{model:24} {len(shared):5} " + " | ".join(cells))


if __name__ == "__main__":
    main()
