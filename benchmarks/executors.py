"""The benchmarks on Ray against threads, on one machine: the same items, the same resumable loop
(``divergent.bench.common.run_plan``), worked by threads (1, then ``--jobs``) or by a local Ray
instance with ``--jobs`` CPUs. Each run starts from an empty store, so every item is worked.

Workloads (real data, no model):

* ``equibench``: the execution judge on the EquiBench pairs we have that execute (the authors' 24
  few-shot exemplars: DCE, x86-64 and OJ programs, built and run in the sandbox), ``--budget`` s each;
* ``cetbench-generate``: CETBench's Algorithm 1 on HumanEval and its recorded samples, ``--count`` pairs;
* ``cetbench-run``: the execution judge on the pairs that generation made;
* ``refute``: the ``divergent`` strategy on the 24 problems of ``examples/refute/corpus.jsonl``;
* ``incoherence``: HumanEval's first ``--tasks`` tasks, two models' recorded samples, m = 10.

    PYTHONPATH=src DIVERGENT_BENCH_DATA=../shared/data/difftrust .venv/bin/python benchmarks/executors.py \\
        [--jobs 2] [--workloads equibench,refute,...]

On one machine Ray cannot beat threads (the sandboxed work is already in other processes); what this
measures is what Ray costs here (start-up, shipping the solver and the items, results coming back)
so that a cluster's gain can be judged. Results: ``benchmarks/results/executors.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if (p / "data").is_dir()),
              ROOT.parent / "shared")
RESULTS = ROOT / "benchmarks" / "results" / "executors.jsonl"
os.environ.setdefault("DIVERGENT_BENCH_DATA", str(SHARED / "data" / "difftrust"))

from divergent.bench.benchmark import Workbench  # noqa: E402
from divergent.executors.base import Executor, ThreadExecutor  # noqa: E402
from divergent.store import Store  # noqa: E402

#: a workload: (store, executor, scratch directory, seconds per item's search) -> items worked
Workload = Callable[[Store, Executor, Path, float], int]
#: workloads that build programs: run once, untimed, with a short budget first (every timed run
#: then finds its builds in the cache, as a rerun would)
BUILDS = ("equibench", "refute")


def equibench(options: argparse.Namespace) -> Workload:
    from divergent.bench.equibench.data import Category, EquiBenchData, load_exemplars
    from divergent.bench.equibench.execution import ExecutionSettings
    from divergent.bench.equibench.run import EquiBenchConfig, JudgeKind, run_equibench

    pairs = [p for p in load_exemplars(SHARED / "data" / "equibench" / "fewshot_exemplars.jsonl")
             if p.category is not Category.CUDA]
    def work(store: Store, executor: Executor, scratch: Path, budget: float) -> int:
        config = EquiBenchConfig(data="exemplars", categories=tuple(Category), judge=JudgeKind.EXECUTION,
                                 execution=ExecutionSettings(budget=budget, x86_inputs=128))
        progress = run_equibench(config, Workbench(store, executor), data=EquiBenchData(pairs=pairs)).progress
        return progress.total

    return work


def cetbench_generate(options: argparse.Namespace) -> Workload:
    from divergent.bench.cetbench.generate import GeneratorSettings
    from divergent.bench.cetbench.generation import GenerationConfig, generate_pairs, generation_parameters
    from divergent.bench.cetbench.pairs import load_material

    tasks, samples = load_material("humaneval")
    settings = GeneratorSettings(count=options.count, seed=1, check_executions=options.check_executions)
    parameters = generation_parameters("humaneval", None, 5, None, settings)

    def work(store: Store, executor: Executor, scratch: Path, budget: float) -> int:
        made = generate_pairs(GenerationConfig(list(tasks), samples, settings, parameters, scratch / "pairs.jsonl"),
                              Workbench(store, executor))
        (ROOT / "build").mkdir(exist_ok=True)
        (ROOT / "build" / "executors-pairs.jsonl").write_text((scratch / "pairs.jsonl").read_text())
        return made.progress.total

    return work


def cetbench_run(options: argparse.Namespace) -> Workload:
    from divergent.bench.cetbench.run import CetConfig, run_cetbench
    from divergent.bench.equibench.run import JudgeKind

    def work(store: Store, executor: Executor, scratch: Path, budget: float) -> int:
        pairs = ROOT / "build" / "executors-pairs.jsonl"
        if not pairs.is_file():
            raise SystemExit("cetbench-run judges the pairs cetbench-generate made: run that workload first")
        config = CetConfig(pairs=str(pairs), judge=JudgeKind.EXECUTION, budget=budget, originals=True)
        progress = run_cetbench(config, Workbench(store, executor)).progress
        return progress.total

    return work


def refute(options: argparse.Namespace) -> Workload:
    from divergent.bench.refute.dataset import load_refute
    from divergent.bench.refute.execution import SandboxRunner
    from divergent.bench.refute.run import RefuteConfig, run_refute
    from divergent.bench.refute.strategies import STRATEGIES, Context

    data = load_refute(ROOT / "examples" / "refute" / "corpus.jsonl")
    builds = Path(tempfile.mkdtemp(prefix="executors-builds-"))

    def work(store: Store, executor: Executor, scratch: Path, budget: float) -> int:
        # one build cache for every run: each measures the searches, not the compilers
        context = Context(runner=SandboxRunner(build_cache=str(builds)), search_seconds=budget)
        try:
            result = run_refute(RefuteConfig(data, [STRATEGIES["divergent"]], context, "corpus"), Workbench(store, executor))
        finally:
            context.runner.close()
        return result.by_strategy["divergent"].total

    return work


def incoherence(options: argparse.Namespace) -> Workload:
    from divergent.incoherence.study import StudyConfig, run_study

    config = StudyConfig(tasks="humaneval", samples=str(SHARED / "data" / "difftrust" / "candidates_HumanEval.jsonl.gz"),
                         models=(("gpt_4o", 0.6), ("ministral_8b", 0.6)), m=10, n=200, limit_tasks=options.tasks)

    def work(store: Store, executor: Executor, scratch: Path, budget: float) -> int:
        progress = run_study(config, Workbench(store, executor)).progress
        return progress.total

    return work


WORKLOADS = {"equibench": equibench, "cetbench-generate": cetbench_generate, "cetbench-run": cetbench_run,
             "refute": refute, "incoherence": incoherence}


def timed(workload: Workload, executor: Executor, budget: float) -> tuple[int, float]:
    with tempfile.TemporaryDirectory(prefix="executors-") as scratch, Store(Path(scratch) / "store.db") as store:
        started = time.monotonic()
        items = workload(store, executor, Path(scratch), budget)
        return items, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--jobs", type=int, default=2, help="threads, and Ray CPUs (default 2)")
    parser.add_argument("--budget", type=float, default=3.0, help="seconds per EquiBench/CETBench pair, REFUTE search")
    parser.add_argument("--count", type=int, default=12, help="CETBench pairs to generate")
    parser.add_argument("--check-executions", type=int, default=500)
    parser.add_argument("--tasks", type=int, default=24, help="incoherence: HumanEval tasks")
    options = parser.parse_args()
    chosen = [name.strip() for name in options.workloads.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {', '.join(WORKLOADS)}")

    import ray

    from divergent.executors.ray_cluster import RayExecutor

    started = time.monotonic()
    ray.init(num_cpus=options.jobs, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    ray_start = time.monotonic() - started
    load = os.getloadavg()
    print(f"Ray start-up (local, {options.jobs} CPUs): {ray_start:.1f} s; load average before: "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    try:
        for name in chosen:
            workload = WORKLOADS[name](options)
            if name in BUILDS:
                timed(workload, ThreadExecutor(options.jobs), 0.5)
            figures: dict[str, Any] = {"benchmark": "executors", "workload": name, "jobs": options.jobs,
                                       "budget": options.budget, "ray_startup_seconds": round(ray_start, 2)}
            for label, executor in (("threads_1", ThreadExecutor(1)), (f"threads_{options.jobs}",
                                                                      ThreadExecutor(options.jobs))):
                items, seconds = timed(workload, executor, options.budget)
                figures[f"{label}_seconds"] = round(seconds, 2)
                figures["items"] = items
                print(f"  {name}: {label} {seconds:.1f} s ({items} items)", file=sys.stderr)
            with RayExecutor(jobs=options.jobs) as executor:
                items, seconds = timed(workload, executor, options.budget)
            figures[f"ray_{options.jobs}_seconds"] = round(seconds, 2)
            print(f"  {name}: ray_{options.jobs} {seconds:.1f} s ({items} items)", file=sys.stderr)
            threads = figures[f"threads_{options.jobs}_seconds"]
            figures["speedup_ray_vs_threads"] = round(threads / seconds, 2) if seconds else None
            figures["speedup_ray_vs_one_thread"] = round(figures["threads_1_seconds"] / seconds, 2) if seconds else None
            figures["load_average"] = [round(x, 1) for x in os.getloadavg()]
            rows.append(figures)
    finally:
        ray.shutdown()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a") as stream:
        for row in rows:
            stream.write(json.dumps({**row, "when": time.strftime("%Y-%m-%d %H:%M")}) + "\n")
    jobs = options.jobs
    print(f"\n{'workload':<18} {'items':>5} {'1 thread':>9} {f'{jobs} threads':>10} {f'Ray {jobs} CPUs':>10} "
          f"{'Ray/threads':>11} {'load':>5}")
    for row in rows:
        print(f"{row['workload']:<18} {row['items']:>5} {row['threads_1_seconds']:>8.1f}s "
              f"{row[f'threads_{jobs}_seconds']:>9.1f}s {row[f'ray_{jobs}_seconds']:>9.1f}s "
              f"{row['speedup_ray_vs_threads']:>10.2f}x {row['load_average'][0]:>5.1f}")
    print(f"(speed-up = threads' seconds / Ray's; Ray's start-up, {ray_start:.1f} s, is not in its column)")


if __name__ == "__main__":
    main()
