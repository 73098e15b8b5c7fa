"""Semantic self-consistency on real LLM samples, on threads and on a local Ray instance.

The self-consistency harness (``divergent bench selfconsistency``: each task's samples clustered by
behaviour with the non-LLM engines, the largest class picked, pass@1 on the task's tests against a
random sample's) on the DiffTrust artifact's recorded samples: the first ``--count`` tasks of
``--tasks``, one model's first ``-m`` samples each, ``--budget`` seconds of search per task. The same
run (the same resumable loop, ``divergent.bench.common.run_plan``), each from an empty store, worked
by 1 thread, ``--jobs`` threads and a local Ray instance with ``--jobs`` CPUs; it prints the seconds
of each, the load average, and pass@1 of the pick against the random sample (per run: the budget is
wall time, so a loaded machine may split fewer classes).

    PYTHONPATH=src nice -n 10 .venv/bin/python benchmarks/selfconsistency.py \\
        [--tasks humaneval] [--model gpt_4o@0.6] [--count 20] [-m 10] [--budget 3] [--jobs 2] [--no-single]

Results: ``benchmarks/results/selfconsistency.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if (p / "data").is_dir()),
              ROOT.parent / "shared")
DATA = SHARED / "data" / "difftrust"
RESULTS = ROOT / "benchmarks" / "results" / "selfconsistency.jsonl"
SAMPLES = {"humaneval": DATA / "candidates_HumanEval.jsonl.gz", "mbpp": DATA / "candidates_MBPP_dev.jsonl.gz"}
os.environ.setdefault("DIVERGENT_BENCH_DATA", str(DATA))

from divergent.bench.benchmark import Workbench  # noqa: E402
from divergent.bench.selfconsistency.run import SelfConsistencyConfig, run_selfconsistency, summarize  # noqa: E402
from divergent.bench.selfconsistency.solve import ClusterSettings  # noqa: E402
from divergent.datasets import parse_model_spec  # noqa: E402
from divergent.executors.base import Executor, ThreadExecutor  # noqa: E402
from divergent.store import Store  # noqa: E402


def timed(config: SelfConsistencyConfig, executor: Executor) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="selfconsistency-") as scratch, \
            Store(Path(scratch) / "store.db") as store:
        started = time.monotonic()
        worked = run_selfconsistency(config, Workbench(store, executor))
        record, progress = worked.run, worked.progress
        seconds = time.monotonic() - started
        (score,) = summarize(store, record).models
    return {"seconds": round(seconds, 2), "tasks": score.tasks, "scored": score.scored, "failed": progress.failed,
            "pass_at_1": round(score.pass_at_1, 4) if score.pass_at_1 is not None else None,
            "baseline_pass_at_1": round(score.baseline_pass_at_1, 4) if score.baseline_pass_at_1 is not None else None,
            "better": score.better, "worse": score.worse, "same": score.same, "tied": score.tied,
            "one_class": score.one_class, "mean_classes": round(score.mean_classes or 0.0, 2),
            "load_average": [round(x, 1) for x in os.getloadavg()],
            "errors": [message for message in progress.messages if ": " in message][:10] if progress.failed else []}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="humaneval", choices=sorted(SAMPLES))
    parser.add_argument("--model", default="gpt_4o@0.6")
    parser.add_argument("--count", type=int, default=20, help="the first N tasks")
    parser.add_argument("-m", type=int, default=10, help="samples per task")
    parser.add_argument("--budget", type=float, default=3.0, help="seconds of search per task")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds per call and per test")
    parser.add_argument("--jobs", type=int, default=2, help="threads, and Ray CPUs")
    parser.add_argument("--no-single", action="store_true", help="skip the 1-thread run")
    options = parser.parse_args()
    config = SelfConsistencyConfig(
        tasks=options.tasks, samples=str(SAMPLES[options.tasks]), models=(parse_model_spec(options.model),),
        m=options.m, limit_tasks=options.count, settings=ClusterSettings(budget=options.budget, timeout=options.timeout),
    )
    import ray

    from divergent.executors.ray_cluster import RayExecutor

    load = os.getloadavg()
    print(f"load average before: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores",
          file=sys.stderr)
    runs: dict[str, dict[str, Any]] = {}
    executors: list[tuple[str, Executor]] = [] if options.no_single else [("threads_1", ThreadExecutor(1))]
    executors.append((f"threads_{options.jobs}", ThreadExecutor(options.jobs)))
    for label, executor in executors:
        runs[label] = timed(config, executor)
        print(f"  {label}: {runs[label]}", file=sys.stderr)  # the failed tasks' errors among them
    started = time.monotonic()
    ray.init(num_cpus=options.jobs, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    ray_start = time.monotonic() - started
    try:
        with RayExecutor(jobs=options.jobs) as executor:
            runs[f"ray_{options.jobs}"] = timed(config, executor)
        print(f"  ray_{options.jobs}: {runs[f'ray_{options.jobs}']} (start-up {ray_start:.1f} s)", file=sys.stderr)
    finally:
        ray.shutdown()
    row = {"benchmark": "selfconsistency", "tasks": options.tasks, "model": options.model, "count": options.count,
           "m": options.m, "budget": options.budget, "jobs": options.jobs, "ray_startup_seconds": round(ray_start, 2),
           "runs": runs, "when": time.strftime("%Y-%m-%d %H:%M")}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a") as stream:
        stream.write(json.dumps(row) + "\n")
    threads = runs[f"threads_{options.jobs}"]["seconds"]
    ray_seconds = runs[f"ray_{options.jobs}"]["seconds"]
    print(f"\n{options.tasks}, {options.model}, {options.count} tasks, m = {options.m}, budget {options.budget:g} s")
    print(f"{'run':<10} {'seconds':>8} {'tasks':>5} {'pick pass@1':>11} {'random':>7} {'better/worse/same':>17} "
          f"{'tied':>4} {'classes':>7} {'load':>5}")
    for label, figures in runs.items():
        print(f"{label:<10} {figures['seconds']:>7.1f}s {figures['tasks']:>5} {100 * (figures['pass_at_1'] or 0):>10.1f}% "
              f"{100 * (figures['baseline_pass_at_1'] or 0):>6.1f}% "
              f"{figures['better']:>7}/{figures['worse']}/{figures['same']:<7} {figures['tied']:>4} "
              f"{figures['mean_classes']:>7.2f} {figures['load_average'][0]:>5.1f}")
    print(f"Ray / {options.jobs} threads: {threads / ray_seconds:.2f}x (threads' seconds / Ray's; Ray's start-up, "
          f"{ray_start:.1f} s, is not in its column)")


if __name__ == "__main__":
    main()
