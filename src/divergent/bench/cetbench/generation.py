"""CETBench generation as a stored, resumable run: one item per scheduled pair.

The schedule (:func:`~divergent.bench.cetbench.generate.schedule`) fixes each position's category
and flag, and every random choice of a position comes from its own seeded generator, so the
positions are independent items of the benchmarks' resumable loop
(:func:`divergent.bench.common.run_plan`): worked on threads or on a Ray cluster, each one saved in
the store as it is done (the pair, or that it was dropped, and its step counts), and a killed run
resumes with the positions not saved yet. A position past the per-pair budget is saved as skipped,
with its reason: a resumed run does not try it again (``--force`` or another ``--pair-budget`` does). The pairs file (``--out``) is written from the store: each
pair appended as it comes, and the whole file rewritten in schedule order when the run ends.

A pairs file from a run made before generation was stored is adopted: its pairs (of the same seed)
count as done, so it resumes as it used to.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from divergent.bench.benchmark import Benchmark, Workbench, Worked
from divergent.bench.cetbench.generate import GenerationStats, GeneratorSettings, PairGenerator, schedule
from divergent.bench.cetbench.pairs import done_indices
from divergent.bench.common import Item, ItemProgress, RunPlan, open_run, results_envelope, run_plan
from divergent.datasets import Candidate, Task
from divergent.store import UNIT_DONE, RunRecord, Store

__all__ = ["CETBENCH_GENERATION", "GENERATION_KIND", "GenerationConfig", "GenerationRun", "PositionSolver",
           "generate_pairs", "generation_document", "stored_generation"]

GENERATION_KIND = "bench-cetbench-generate"

#: generators by (solver, thread): each thread (each Ray worker) keeps its tasks' warm testers
_GENERATORS: dict[tuple[str, int], PairGenerator] = {}
_GENERATORS_LOCK = threading.Lock()


@dataclass(frozen=True)
class PositionSolver:
    """The solver: a schedule position → its pair (or None: dropped) and the counts of its steps."""

    tasks: tuple[Task, ...]
    samples: dict[str, list[Candidate]]
    settings: GeneratorSettings
    #: which generators are this run's (a new solver, a new set of them)
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def generator(self) -> PairGenerator:
        key = (self.token, threading.get_ident())
        with _GENERATORS_LOCK:
            found = _GENERATORS.get(key)
            if found is None:
                found = _GENERATORS[key] = PairGenerator(self.tasks, self.samples, self.settings)
        return found

    def __call__(self, position: tuple[int, str, str]) -> dict[str, Any]:
        index, category, flag = position
        generator = self.generator()
        generator.stats = GenerationStats()
        runs_before = generator.test_runs()
        pair = generator.generate_one(index, category, flag)
        generator.stats.test_runs = generator.test_runs() - runs_before
        return {"index": index, "pair": pair.as_dict(self.settings.seed) if pair is not None else None,
                "skipped": generator.skipped, "counts": generator.stats.to_json()}

    def close(self) -> None:
        """Stop the warm workers of this run's generators (those of this process)."""
        with _GENERATORS_LOCK:
            mine = [key for key in _GENERATORS if key[0] == self.token]
            generators = [_GENERATORS.pop(key) for key in mine]
        for generator in generators:
            generator.close()


def unit_key(index: int) -> str:
    return f"{index:05d}"


@dataclass(frozen=True)
class GenerationConfig:
    """What a generation makes its pairs from, and where it writes them."""

    #: the tasks and their recorded samples by task id (:func:`~divergent.bench.cetbench.pairs.load_material`)
    tasks: Sequence[Task]
    samples: dict[str, list[Candidate]]
    settings: GeneratorSettings
    #: what identifies the stored run (:func:`generation_parameters`)
    parameters: dict[str, Any]
    #: the pairs file (JSON lines)
    out: Path
    #: start a new stored run (and a new ``out``) instead of resuming
    fresh: bool = False


@dataclass
class GenerationRun(Worked):
    """What a generation did: the stored run, the pairs in schedule order, the totals."""

    pairs: list[dict[str, Any]] = field(default_factory=list)
    stats: GenerationStats = field(default_factory=GenerationStats)
    #: pairs made by this invocation (the others were stored before)
    made_now: int = 0


def generation_parameters(tasks: str, samples: str | None, per_task: int, limit_tasks: int | None,
                          settings: GeneratorSettings) -> dict[str, Any]:
    """What identifies a generation run (its schedule depends on the count and the seed)."""
    return {"tasks": tasks, "samples": str(Path(samples).resolve()) if samples else None, "per_task": per_task,
            "limit_tasks": limit_tasks, **settings.as_dict()}


def generate_pairs(config: GenerationConfig, bench: Workbench) -> GenerationRun:
    """Generate (or resume) the scheduled pairs on the workbench, writing ``config.out``."""
    store, settings, parameters, out = bench.store, config.settings, config.parameters, config.out
    PairGenerator(config.tasks, config.samples, settings)  # the material's checks, before anything is stored
    plan_positions = schedule(settings.count, settings.seed)
    if config.fresh:
        out.unlink(missing_ok=True)
        run, saved = store.create_run(GENERATION_KIND, parameters), set()
    else:
        run, saved = open_run(store, GENERATION_KIND, parameters)
    if not saved:
        saved = _adopt(store, run, out, settings.seed)
    dataset = [Item(unit_key(index), (index, category, flag)) for index, (category, flag) in enumerate(plan_positions)]
    solver = PositionSolver(tuple(config.tasks), config.samples, settings)
    made = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as stream:

        def save_pair(item: Item[tuple[int, str, str]], result: Any) -> dict[str, Any]:
            nonlocal made
            if result.get("pair") is not None:
                stream.write(json.dumps(result["pair"], ensure_ascii=False) + "\n")
                stream.flush()
                made += 1
            return {item.key: result}

        plan = RunPlan(GENERATION_KIND, parameters, dataset, solver, split=save_pair)
        try:
            record, progress = run_plan(store, plan, executor=bench.executor, on_progress=bench.on_progress,
                                        opened=(run, saved))
        finally:
            solver.close()
    generation = stored_generation(store, record, progress)
    generation.made_now = made
    _write_pairs(out, generation.pairs)
    return generation


def stored_generation(store: Store, run: RunRecord, progress: ItemProgress | None = None) -> GenerationRun:
    """The pairs and totals of a stored generation run (nothing runs)."""
    stats = GenerationStats()
    pairs = []
    for unit in store.units(run.id):
        if unit.state != UNIT_DONE:
            stats.dropped += 1
            continue
        stats.add(unit.result.get("counts", {}))
        stats.seconds += unit.seconds
        if unit.result.get("pair") is not None:
            pairs.append(unit.result["pair"])
            stats.pairs += 1
        elif not unit.result.get("skipped"):
            stats.dropped += 1
    pairs.sort(key=lambda pair: int(pair.get("index", 0)))
    return GenerationRun(run, progress or ItemProgress(total=len(pairs)), pairs=pairs, stats=stats)


def generation_document(generation: GenerationRun) -> dict[str, Any]:
    """A generation's ``--json`` document: the results envelope, its items the pairs."""
    return results_envelope("cetbench-generate", generation.run,
                            summary={"tasks": generation.run.parameters.get("tasks"), **generation.stats.as_dict()},
                            items=[{"key": pair["pair_id"], **pair} for pair in generation.pairs])


def _adopt(store: Store, run: RunRecord, out: Path, seed: int) -> set[str]:
    """Pairs of ``out`` made by an earlier, unstored run with the same seed: stored as done (for a
    stored run that has nothing yet)."""
    indices = done_indices(out, seed)
    if not indices:
        return set()
    adopted = set()
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        index = record.get("index") if isinstance(record, dict) else None
        if isinstance(index, int) and unit_key(index) not in adopted:
            store.save_unit(run.id, unit_key(index), {"index": index, "pair": record, "counts": {}, "adopted": True},
                            float(record.get("seconds", 0.0) or 0.0))
            adopted.add(unit_key(index))
    return adopted


def _write_pairs(out: Path, pairs: Sequence[dict[str, Any]]) -> None:
    """The pairs file, in schedule order (written aside, then moved over: never half a file)."""
    partial = out.with_name(out.name + ".partial")
    partial.write_text("".join(json.dumps(pair, ensure_ascii=False) + "\n" for pair in pairs), encoding="utf-8")
    partial.replace(out)


#: CETBench's generation (Algorithm 1) as a benchmark of its own: its items the schedule's positions, its
#: solver :class:`PositionSolver`, its "score" the pairs and the steps' counts
CETBENCH_GENERATION: Benchmark[GenerationConfig, GenerationRun] = Benchmark(
    name="cetbench-generate", title="CETBench generation", kinds=(GENERATION_KIND,), options=GenerationConfig,
    work=generate_pairs, summarize=stored_generation, document=generation_document,
)
