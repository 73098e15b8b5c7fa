"""CETBench generation speed: pairs per second, the slowest pair, and what was skipped and why.

Generates ``--count`` pairs (the paper's Algorithm 1: original pairs, then validated perturbation
steps) from HumanEval's tasks and their recorded LLM samples (``shared/data/difftrust``, offline),
through the stored, resumable run of ``divergent bench cetbench generate`` on ``--jobs`` threads
(default 1), from an empty store. Each pair's seconds come from the store (the time its schedule position took, dropped
and skipped positions included); the script prints them as they come, so a run stopped early still
has figures, then the median pairs/s, the slowest pair, and the skipped/dropped counts by reason.
On a shared machine the seconds say more about the load than about the code, so the script also
prints the CPU seconds the run took per position: this process's (the search's engines, the
rewrites, the parent side of the sandbox) and its children's (the sandboxed workers; a sandbox that
is killed does not hand on the time of the processes inside it, so this part is a lower bound).

    PYTHONPATH=src .venv/bin/python benchmarks/cetbench_generation.py [--count 20] [--jobs 2] [--pair-budget 30]

Results are appended to ``benchmarks/results/cetbench_generation.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if (p / "data").is_dir()),
              ROOT.parent / "shared")
RESULTS = ROOT / "benchmarks" / "results" / "cetbench_generation.jsonl"
os.environ.setdefault("DIVERGENT_BENCH_DATA", str(SHARED / "data" / "difftrust"))

from divergent.bench.benchmark import Workbench  # noqa: E402
from divergent.bench.cetbench.generate import GeneratorSettings  # noqa: E402
from divergent.bench.cetbench.generation import GenerationConfig, generate_pairs, generation_parameters  # noqa: E402
from divergent.bench.cetbench.pairs import load_material  # noqa: E402
from divergent.executors.base import ThreadExecutor  # noqa: E402
from divergent.store import Store  # noqa: E402


def _settings(options: argparse.Namespace) -> GeneratorSettings:
    extra: dict[str, Any] = {}
    if options.pair_budget is not None and "pair_budget" in GeneratorSettings.__dataclass_fields__:
        extra["pair_budget"] = options.pair_budget
    return GeneratorSettings(count=options.count, seed=options.seed, check_executions=options.check_executions,
                             **extra)


def _cpu_seconds() -> tuple[float, float]:
    """User and system CPU seconds of this process, and of its children that have ended."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check-executions", type=int, default=2000)
    parser.add_argument("--pair-budget", type=float, default=None,
                        help="seconds per pair (default: the generator's own default)")
    parser.add_argument("--jobs", type=int, default=1, help="threads working the positions")
    parser.add_argument("--label", default="", help="a note stored with the figures (before/after)")
    options = parser.parse_args()

    tasks, samples = load_material("humaneval")
    settings = _settings(options)
    parameters = generation_parameters("humaneval", None, 5, None, settings)
    load = os.getloadavg()
    cpu_before = _cpu_seconds()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cetbench-generation-") as scratch, \
            Store(Path(scratch) / "store.db") as store:

        def progress(state: Any) -> None:
            print(f"  {state.done}/{state.total} positions done, {time.monotonic() - started:.1f} s", flush=True)

        generation = generate_pairs(GenerationConfig(list(tasks), samples, settings, parameters,
                                                     Path(scratch) / "pairs.jsonl"),
                                    Workbench(store, ThreadExecutor(options.jobs), on_progress=progress))
        wall = time.monotonic() - started
        units = list(store.units(generation.run.id))
    cpu = [after - before for after, before in zip(_cpu_seconds(), cpu_before, strict=True)]
    seconds = sorted((unit.seconds, unit.key) for unit in units)
    made = [unit for unit in units if unit.result.get("pair") is not None]
    skipped = Counter(str(unit.result.get("skipped")) for unit in units if unit.result.get("skipped"))
    per_pair = [s for s, _ in seconds]
    median = statistics.median(per_pair) if per_pair else float("nan")
    figures = {
        "label": options.label, "count": options.count, "jobs": options.jobs, "seed": options.seed,
        "check_executions": options.check_executions, "pair_budget": getattr(settings, "pair_budget", None),
        "positions": len(units), "pairs": len(made), "wall_seconds": round(wall, 2),
        "pairs_per_second_overall": round(len(made) / wall, 3) if wall else None,
        "median_seconds_per_position": round(median, 3),
        "median_positions_per_second": round(1 / median, 3) if median else None,
        "cpu_seconds": {"process": round(cpu[0], 2), "children": round(cpu[1], 2)},
        "cpu_seconds_per_position": {"process": round(cpu[0] / len(units), 3),
                                     "children": round(cpu[1] / len(units), 3)} if units else None,
        "slowest": [{"position": key, "seconds": round(s, 2)} for s, key in seconds[-3:][::-1]],
        "skipped": dict(skipped),
        "dropped": generation.stats.dropped,
        "originals_rejected": dict(generation.stats.originals_rejected),
        "test_runs": generation.stats.test_runs, "checks": generation.stats.checks,
        "load_average_before": [round(x, 2) for x in load],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    print(json.dumps(figures, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps(figures) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
