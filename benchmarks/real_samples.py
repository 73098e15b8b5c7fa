"""Real samples: can divergent disprove recorded LLM programs that fail HumanEval's tests?

Over pairs (canonical solution, a recorded sample that fails the task's tests) this measures the
share of pairs ``check`` disproves (a confirmed divergence) in two modes:

(a) **signature only** — no test inputs at all: the engines generate from the typed signature.
    ``check`` also harvests seeds from the doctest examples in the implementations' docstrings and
    from ``assert`` lines in their sources, and HumanEval prompts carry ``>>>`` examples in the
    docstring (often with the expected answers). To keep this mode honest, every docstring
    (module, functions, classes) is removed from both sources before loading (``ast`` drops the
    docstring node, ``ast.unparse`` writes the code back; a source that does not round-trip is kept
    as is). Comments go too; the code is unchanged. Seeds that still leak in (an ``assert`` calling
    the function in a sample's own source) are counted per pair (``leaked_seeds``). A pair whose
    parameters are unannotated cannot be generated for: ``MissingSeeds`` is counted separately as
    "not disprovable from the signature".
(b) **test inputs as seeds** — the same (docstring-free) implementations, plus the literal
    arguments of the ``candidate(...)`` calls in the task's ``test`` code as seed inputs.

Data: ``/work/shared/data/difftrust`` (see its README): the HumanEval tasks and the recorded
samples of one (model, temperature) configuration, by default ``ministral_8b`` at 0.6 (weaker
models fail more). Which samples fail is decided in divergent's sandbox, never in this process (the
samples are untrusted LLM output): each sample is loaded together with a small harness that runs
the task's ``test`` code in a copy of the sample module's namespace (so the test's own ``check``
cannot clobber a helper of the same name in the sample) and calls ``check(<entry point>)``. A
worker that returns True passes; one that raises, times out or crashes fails. Workers run in
parallel on a wall-clock timer, so a timeout is re-tried alone with a longer timeout before it
counts as a failure. The canonical solution goes through the same harness as a sanity check.

For every task (in HumanEval order) the first failing sample by index is paired with the canonical
solution. Each finished pair is appended as a JSON line to ``results/real_samples.jsonl``; a rerun
skips the pairs already there (same model, temperature and budget), ``--fresh`` drops them first.

Run (2 cores: keep it in the background)::

    PYTHONPATH=src .venv/bin/python benchmarks/real_samples.py --tasks 5 --budget 3     # smoke
    PYTHONPATH=src .venv/bin/python benchmarks/real_samples.py --tasks 60 --budget 5
    PYTHONPATH=src .venv/bin/python benchmarks/real_samples.py --summary-only
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import statistics
import sys
import time
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from divergent import load
from divergent.datasets import default_data_dir
from divergent.engines.registry import NEEDS_MODEL
from divergent.errors import DivergentError, LoadError, MissingSeeds, SandboxUnavailable, SignatureMismatch
from divergent.kinds.functions import FUNCTION_ENGINES, PYTHON_FUNCTIONS, function_seeds
from divergent.policy import DEFAULT_POLICY
from divergent.programs import PythonFunction
from divergent.records import Budget, Input, Outcome, OutcomeKind, Report
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import WorkerPool
from divergent.search import Progress, check
from divergent.values import render

# $DIVERGENT_BENCH_DATA (docs/incoherence.md), else shared/data/difftrust beside this checkout
DATA_DIR = default_data_dir() or Path(__file__).resolve().parents[2] / "shared" / "data" / "difftrust"
TASKS_FILE = DATA_DIR / "HumanEval" / "data" / "human-eval-v2-20210705.jsonl"
SAMPLES_FILE = DATA_DIR / "candidates_HumanEval.jsonl.gz"
RESULTS_FILE = Path(__file__).resolve().parent / "results" / "real_samples.jsonl"

#: every engine that does not call a language model
DEFAULT_ENGINES = tuple(name for name in FUNCTION_ENGINES if name not in NEEDS_MODEL)
#: the default policy without the argument-mutation rule, to tell mutation-only differences apart
WITHOUT_MUTATION = DEFAULT_POLICY.with_(compare_mutation=False)
MODES = ("a", "b")
MODE_TITLES = {"a": "signature only", "b": "test inputs as seeds"}

TEST_ENTRY = "__divergent_tests__"
#: per-call wall-clock limit for a test run, and for the lone re-try of one that timed out
TEST_TIMEOUT = 5.0
TEST_RETRY_TIMEOUT = 15.0
TEST_MEMORY_MB = 1024
#: implementations (one worker each) per test pool
TEST_BATCH = 20


# ------------------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True)
class Task:
    task_id: str
    prompt: str
    canonical_solution: str
    test: str
    entry_point: str

    @property
    def number(self) -> int:
        return int(self.task_id.rsplit("/", 1)[1])


@dataclass(frozen=True)
class Sample:
    index: int
    code: str


def load_tasks(path: Path = TASKS_FILE) -> list[Task]:
    tasks = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                tasks.append(
                    Task(row["task_id"], row["prompt"], row["canonical_solution"], row["test"], row["entry_point"])
                )
    return sorted(tasks, key=lambda task: task.number)


def load_samples(model: str, temperature: float, path: Path = SAMPLES_FILE) -> dict[str, list[Sample]]:
    """The configuration's samples per task id, by index (streamed: the file is large)."""
    found: dict[str, dict[int, Sample]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["model"] != model or float(row["temperature"]) != temperature:
                continue
            if row.get("kind", "candidates") != "candidates":
                continue
            found.setdefault(row["task_id"], {}).setdefault(int(row["index"]), Sample(int(row["index"]), row["code"]))
    return {task_id: [by_index[i] for i in sorted(by_index)] for task_id, by_index in found.items()}


def strip_docstrings(source: str) -> str:
    """The source without docstrings (module, functions, classes); unchanged if it does not round-trip."""
    try:
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                del body[0]
                if not body and not isinstance(node, ast.Module):
                    body.append(ast.Pass())
        stripped = ast.unparse(tree)
        ast.parse(stripped)
        return stripped
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source


# ------------------------------------------------------------------------------------------------
# Which samples fail the task's tests (in the sandbox)


def harness_source(code: str, task: Task) -> str:
    """The program whose ``__divergent_tests__()`` returns True when ``code`` passes the task's tests."""
    return (
        f"{code}\n\n\n"
        f"__divergent_test_source__ = {task.test!r}\n\n\n"
        f"def {TEST_ENTRY}():\n"
        "    namespace = dict(globals())\n"
        "    exec(compile(__divergent_test_source__, '<humaneval test>', 'exec'), namespace)\n"
        f"    namespace['check'](namespace[{task.entry_point!r}])\n"
        "    return True\n"
    )


@dataclass(frozen=True)
class TestResult:
    passed: bool
    how: str


def _describe_test_outcome(outcome: Any) -> TestResult:
    if outcome.kind is OutcomeKind.RETURNED and outcome.value is True:
        return TestResult(True, "passed")
    if outcome.kind is OutcomeKind.RAISED:
        return TestResult(False, f"raised {outcome.exception.type_name}"[:120])
    if outcome.kind is OutcomeKind.RETURNED:
        return TestResult(False, f"returned {outcome.describe()}"[:120])
    return TestResult(False, outcome.kind.value)


def _run_pool(impls: Sequence[PythonFunction], timeout: float) -> list[TestResult]:
    limits = Limits(timeout=timeout, memory_mb=TEST_MEMORY_MB)
    with WorkerPool(impls, limits=limits) as pool:
        (outcomes,) = pool.run([Input(how_generated="tests")])
    return [_describe_test_outcome(outcome) for outcome in outcomes]


def run_tests(programs: Sequence[tuple[str, str, Task]]) -> list[TestResult]:
    """Run the task tests on ``(label, code, task)`` programs, ``TEST_BATCH`` workers at a time."""
    results: list[TestResult | None] = [None] * len(programs)
    loaded: list[tuple[int, PythonFunction]] = []
    for position, (label, code, task) in enumerate(programs):
        try:
            loaded.append((position, load.load_source(harness_source(code, task), function=TEST_ENTRY, label=label)))
        except LoadError as error:
            results[position] = TestResult(False, f"harness did not load: {error}"[:120])
    for start in range(0, len(loaded), TEST_BATCH):
        batch = loaded[start : start + TEST_BATCH]
        try:
            outcomes = _run_pool([impl for _, impl in batch], TEST_TIMEOUT)
        except (LoadError, SandboxUnavailable):
            # one program that fails to load (or to reload) sinks the whole pool: go one by one
            outcomes = [_run_alone(impl, TEST_TIMEOUT) for _, impl in batch]
        for (position, impl), result in zip(batch, outcomes, strict=True):
            if result.how == OutcomeKind.TIMEOUT.value:
                # the timer is wall-clock and the batch shared two cores: try again alone, longer
                result = _run_alone(impl, TEST_RETRY_TIMEOUT)
            results[position] = result
    return [result if result is not None else TestResult(False, "not run") for result in results]


def _run_alone(impl: PythonFunction, timeout: float) -> TestResult:
    try:
        return _run_pool([impl], timeout)[0]
    except LoadError as error:
        return TestResult(False, f"load failed in the sandbox: {error}"[:160])
    except SandboxUnavailable as error:
        return TestResult(False, f"sandbox: {error}"[:160])


@dataclass(eq=False)
class TaskState:
    task: Task
    samples: list[Sample]
    unloadable: int = 0
    canonical: TestResult | None = None
    tested: dict[int, TestResult] = field(default_factory=dict)
    by_code: dict[str, TestResult] = field(default_factory=dict)
    next: int = 0
    #: None while undecided; then "pair", "canonical-fails" or "no-failing-sample"
    status: str | None = None
    failing: Sample | None = None
    passing: Sample | None = None
    #: the selection details stored with a pair by an earlier run
    stored_selection: dict | None = None

    def resolve(self) -> None:
        if self.status is not None or self.canonical is None:
            return
        if not self.canonical.passed:
            self.status = "canonical-fails"
            return
        for sample in self.samples:
            result = self.tested.get(sample.index)
            if result is None:
                return
            if not result.passed:
                self.status, self.failing = "pair", sample
                return
            if self.passing is None:
                self.passing = sample
        self.status = "no-failing-sample"

    def selection(self) -> dict:
        if self.stored_selection is not None:
            return self.stored_selection
        return {
            "samples": len(self.samples) + self.unloadable,
            "unloadable": self.unloadable,
            "tested": len(self.tested),
            "canonical": self.canonical.how if self.canonical else None,
            "failure": self.tested[self.failing.index].how if self.failing else None,
            "first_passing": self.passing.index if self.passing else None,
        }


def select_pairs(states: list[TaskState], wanted: int | None, log: Any) -> None:
    """Test samples in index order, ``TEST_BATCH`` at a time across tasks, until the first ``wanted``
    tasks (in order) with a failing sample are known (every task when ``wanted`` is None)."""

    def enough() -> bool:
        pairs = 0
        for state in states:
            if state.status is None:
                return False
            pairs += state.status == "pair"
            if wanted is not None and pairs >= wanted:
                return True
        return True

    wave = 0
    while not enough():
        wave += 1
        active = [s for s in states if s.status is None][:TEST_BATCH]
        programs: list[tuple[str, str, Task]] = []
        owners: list[tuple[TaskState, Sample | None]] = []
        #: samples whose code is already in this wave: they take that program's result
        twins: list[tuple[TaskState, Sample]] = []
        progressed = True
        while len(programs) < TEST_BATCH and progressed:
            progressed = False
            for state in active:
                if len(programs) >= TEST_BATCH:
                    break
                if state.canonical is None and (state, None) not in owners:
                    source = state.task.prompt + state.task.canonical_solution
                    programs.append((f"{state.task.task_id}#canonical", source, state.task))
                    owners.append((state, None))
                    progressed = True
                    continue
                wave_codes = {s.code for o, s in owners if o is state and s is not None}
                while state.next < len(state.samples):
                    sample = state.samples[state.next]
                    state.next += 1
                    if sample.code in state.by_code:
                        state.tested[sample.index] = state.by_code[sample.code]
                    elif sample.code in wave_codes:
                        twins.append((state, sample))
                    else:
                        programs.append((f"{state.task.task_id}#{sample.index}", sample.code, state.task))
                        owners.append((state, sample))
                        progressed = True
                        break
        started = time.monotonic()
        for (state, sample), result in zip(owners, run_tests(programs), strict=True):
            if sample is None:
                state.canonical = result
            else:
                state.tested[sample.index] = result
                state.by_code.setdefault(sample.code, result)
        for state, sample in twins:
            state.tested[sample.index] = state.by_code[sample.code]
        for state in active:
            state.resolve()
        decided = sum(s.status is not None for s in states)
        log(f"tests wave {wave}: {len(programs)} programs in {time.monotonic() - started:.1f} s; "
            f"{decided}/{len(states)} tasks decided")


# ------------------------------------------------------------------------------------------------
# The two checks of one pair


def run_mode(impls: list[PythonFunction], seeds: list[Input] | None, budget: float) -> dict:
    found_at: list[float] = []
    last: list[float] = [0.0]

    def progress(snapshot: Progress) -> None:
        if snapshot.phase == "shrinking" and not found_at:
            found_at.append(last[0])
        last[0] = snapshot.seconds

    record: dict[str, Any] = {}
    if seeds is None:
        # seeds that would still reach the engines in mode (a) (asserts left in a sample's source)
        try:
            signature = load.common_signature(impls)
            record["leaked_seeds"] = len(function_seeds(impls, signature, None)[0])
        except DivergentError:
            pass
    started = time.monotonic()
    try:
        report = check(impls, budget=Budget(seconds=budget), engines=DEFAULT_ENGINES, seeds=seeds,
                       progress=progress)
    except MissingSeeds:
        return {**record, "status": "missing-seeds", "wall": round(time.monotonic() - started, 3)}
    except SignatureMismatch as error:
        return {**record, "status": "signature-mismatch", "error": str(error)[:300],
                "wall": round(time.monotonic() - started, 3)}
    except LoadError as error:
        return {**record, "status": "load-error", "error": str(error)[:300],
                "wall": round(time.monotonic() - started, 3)}
    except DivergentError as error:
        return {**record, "status": "error", "error": f"{type(error).__name__}: {error}"[:300],
                "wall": round(time.monotonic() - started, 3)}
    except Exception as error:  # noqa: BLE001 - a crash of divergent itself: record it, go on
        return {**record, "status": "crash", "error": f"{type(error).__name__}: {error}"[:300],
                "traceback": traceback.format_exc()[-2000:], "wall": round(time.monotonic() - started, 3)}
    record.update(describe_report(report))
    record["wall"] = round(time.monotonic() - started, 3)
    if report.counterexample is not None:
        # when the search found it (before shrinking); the report's seconds include shrinking
        record["found_seconds"] = round(found_at[0] if found_at else report.seconds, 3)
    return record


def describe_report(report: Report) -> dict:
    record: dict[str, Any] = {
        "status": report.verdict.value,
        "exit_reason": report.exit_reason.value,
        "seconds": report.seconds,
        "executions": report.executions,
        "inputs": report.inputs,
        "engines": {stats.name: {"inputs": stats.inputs, "divergences": stats.divergences,
                                 **({"stopped": stats.stopped[:120]} if stats.stopped else {})}
                    for stats in report.engines},
        "notes": [note[:200] for note in report.notes[:5]],
        # engines that could not start at all (not "unsupported" stops, which are in "engines")
        "engines_not_used": [note[:200] for note in report.notes if note.startswith("engine ")],
    }
    example = report.counterexample
    if example is not None:
        record["engine"] = example.engine
        record["call"] = example.input.call(example.function_name, max_length=80)
        record["original_call"] = example.original.call(example.function_name, max_length=80)
        record["outcomes"] = [
            {"kind": outcome.kind.value, "value": outcome.describe()[:200],
             "args_after": render(outcome.args_after)[:200]}
            for outcome in example.outcomes
        ]
        record["difference"] = difference_kind(example.outcomes)
        # the seed engine's input before shrinking is one of the test inputs (or a doctest example)
        record["on_seed_input"] = example.engine == "seeds"
    return record


def difference_kind(outcomes: Sequence[Outcome]) -> str:
    """How the two sides differ: the value, the exception, a hang or crash, or only argument mutation."""
    first, second = outcomes[0], outcomes[1]
    if {first.kind, second.kind} & {OutcomeKind.TIMEOUT, OutcomeKind.CRASH}:
        return "timeout-or-crash"
    if WITHOUT_MUTATION.outcomes_equal(first, second):
        return "argument-mutation-only"
    if first.kind is second.kind is OutcomeKind.RETURNED:
        return "return-value"
    if first.kind is second.kind is OutcomeKind.RAISED:
        return "exception-type"
    return "raises-vs-returns"


def check_pair(state: TaskState, sample: Sample, model: str, budget: float, modes: Sequence[str]) -> dict:
    task = state.task
    record: dict[str, Any] = {"task": task.task_id, "entry_point": task.entry_point,
                              "sample": f"{model}#{sample.index}", "index": sample.index}
    try:
        canonical = load.load_source(strip_docstrings(task.prompt + task.canonical_solution),
                                     function=task.entry_point, label="canonical")
        candidate = load.load_source(strip_docstrings(sample.code), function=task.entry_point,
                                     label=f"{model}#{sample.index}")
    except LoadError as error:
        return {**record, **{mode: {"status": "load-error", "error": str(error)[:300]} for mode in modes}}
    record["canonical_unannotated"] = any(not p.annotated for p in canonical.signature.required)
    record["signature"] = str(canonical.signature)
    seeds = load.seeds_from_asserts(task.test, "candidate", signature=canonical.signature)
    record["test_seeds"] = len(seeds)
    for mode in modes:
        record[mode] = run_mode([canonical, candidate], None if mode == "a" else list(seeds), budget)
    return record


# ------------------------------------------------------------------------------------------------
# Results file


def read_records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by an interrupted run
    return records


def append_record(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


def drop_records(path: Path, model: str, temperature: float, budget: float) -> None:
    """--fresh: forget this configuration's pairs (at this budget) and task decisions."""
    kept = [
        record for record in read_records(path)
        if not (record.get("model") == model and record.get("temperature") == temperature
                and (record.get("record") == "task" or record.get("budget") == budget))
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in kept), encoding="utf-8")


# ------------------------------------------------------------------------------------------------
# Summary


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s" if values else "-"


def _share(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.0f}%)" if total else "0/0"


def _status(record: dict, mode: str) -> str:
    return record.get(mode, {}).get("status", "missing")


def summarize(pairs: list[dict], controls: list[dict], tasks: list[dict], counts: dict[str, Any]) -> str:
    lines = []
    total = len(pairs)
    # a sample whose module raises on import fails every test before any input: nothing to search
    loadable = [p for p in pairs if "load-error" not in (_status(p, "a"), _status(p, "b"))]
    lines.append(f"pairs (canonical, first failing sample): {total}; the sample's module loads: {len(loadable)}")
    for mode in MODES:
        statuses = Counter(_status(p, mode) for p in pairs)
        divergent = [p[mode] for p in pairs if _status(p, mode) == "divergent"]
        found = [r["found_seconds"] for r in divergent if "found_seconds" in r]
        totals = [r["seconds"] for r in divergent if "seconds" in r]
        searchable = [p for p in loadable if _status(p, mode) != "missing-seeds"]
        lines.append(f"  ({mode}) {MODE_TITLES[mode]}: disproved {_share(len(divergent), total)} of all pairs, "
                     f"{_share(len(divergent), len(loadable))} of loadable ones, "
                     f"{_share(len(divergent), len(searchable))} of those it could search")
        lines.append(f"      median seconds to disproof {_median(found)} (with shrinking {_median(totals)})")
        other = {k: v for k, v in statuses.items() if k != "divergent"}
        lines.append("      other verdicts: " + (", ".join(f"{k} {v}" for k, v in sorted(other.items())) or "-"))
        engines = Counter(r.get("engine") for r in divergent)
        lines.append("      found by engine: " + (", ".join(f"{k} {v}" for k, v in engines.most_common()) or "-"))
        kinds = Counter(r.get("difference") for r in divergent)
        lines.append("      difference: " + (", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "-"))
        if mode == "a":
            leaked = sum(1 for p in pairs if p.get("a", {}).get("leaked_seeds"))
            lines.append(f"      pairs with seeds left after stripping docstrings: {leaked}")
    a_div = {p["task"] for p in pairs if _status(p, "a") == "divergent"}
    b_div = {p["task"] for p in pairs if _status(p, "b") == "divergent"}
    lines.append(f"  both modes {len(a_div & b_div)}, either {len(a_div | b_div)}, only (a) {len(a_div - b_div)}, "
                 f"only (b) {len(b_div - a_div)}")
    crippled = [p for p in pairs + controls for mode in MODES if p.get(mode, {}).get("engines_not_used")]
    if crippled:
        lines.append(f"  WARNING: {len(crippled)} checks ran without some engine, e.g. "
                     f"{next(p[m]['engines_not_used'][0] for p in crippled for m in MODES if p.get(m, {}).get('engines_not_used'))}")
    unannotated = sum(1 for p in pairs if p.get("canonical_unannotated"))
    lines.append(f"  canonical signature with unannotated parameters: {unannotated}")
    lines.append(f"  pairs with no literal test input: {sum(1 for p in pairs if p.get('test_seeds') == 0)}")
    statuses = Counter(t["status"] for t in tasks)
    lines.append("  tasks without a pair: " + (", ".join(f"{k} {v}" for k, v in sorted(statuses.items())) or "-"))
    for key, value in counts.items():
        lines.append(f"  {key}: {value}")
    if controls:
        claimed = [c for c in controls if _status(c, "b") == "divergent"]
        kinds = Counter(c["b"].get("difference") for c in claimed)
        lines.append(f"controls (canonical, first sample that PASSES the tests; mode b): {len(controls)}; "
                     f"divergence claimed on {len(claimed)} ("
                     + (", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "-")
                     + "): the tests are incomplete, so each needs a look")
        for c in claimed:
            outcomes = " | ".join(o["value"][:50] for o in c["b"].get("outcomes", []))
            lines.append(f"    {c['task']} {c['sample']}: {c['b'].get('call')} -> {outcomes}"
                         f"  [{c['b'].get('difference')}]")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="ministral_8b")
    parser.add_argument("--temperature", type=float, default=0.6)
    parser.add_argument("--tasks", type=int, default=None, help="number of pairs (default: every task)")
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per check")
    parser.add_argument("--fresh", action="store_true", help="ignore (drop) stored results of this configuration")
    parser.add_argument("--controls", action="store_true",
                        help="also check (canonical, first passing sample) in mode b, to spot false claims")
    parser.add_argument("--summary-only", action="store_true", help="print the summary of stored results")
    parser.add_argument("--results", type=Path, default=RESULTS_FILE)
    args = parser.parse_args(argv)
    started = time.monotonic()

    def log(message: str) -> None:
        print(f"[{time.monotonic() - started:7.1f} s] {message}", flush=True)

    config = {"model": args.model, "temperature": args.temperature}
    if not args.summary_only:
        # an engine that cannot even be imported (a checkout mid-edit) would silently drop out of check
        for name in DEFAULT_ENGINES:
            try:
                PYTHON_FUNCTIONS.engine_class(name)
            except Exception as error:  # noqa: BLE001 - report any import failure and stop
                parser.error(f"engine {name} cannot be imported: {type(error).__name__}: {error}")
    if args.fresh and not args.summary_only:
        drop_records(args.results, args.model, args.temperature, args.budget)
    stored = [r for r in read_records(args.results)
              if r.get("model") == args.model and r.get("temperature") == args.temperature]
    done_pairs = {r["task"]: r for r in stored if r.get("record") == "pair" and r.get("budget") == args.budget}
    done_controls = {r["task"]: r for r in stored if r.get("record") == "control" and r.get("budget") == args.budget}
    # the selection does not depend on the budget: reuse it from pairs checked at another budget
    any_pair = {} if args.fresh else {r["task"]: r for r in stored if r.get("record") == "pair"}
    done_tasks = {r["task"]: r for r in stored if r.get("record") == "task"}

    tasks = load_tasks()
    log(f"reading samples of {args.model} at temperature {args.temperature:g}")
    samples = load_samples(args.model, args.temperature)
    states: list[TaskState] = []
    unloadable_total = loaded_total = 0
    for task in tasks:
        if task.task_id not in samples:
            continue
        good = []
        bad = 0
        for sample in samples[task.task_id]:
            try:
                load.load_source(sample.code, function=task.entry_point, label=f"{args.model}#{sample.index}")
                good.append(sample)
            except LoadError:
                bad += 1
        unloadable_total += bad
        loaded_total += len(good)
        state = TaskState(task=task, samples=good, unloadable=bad)
        # decisions stored by an earlier run are reused (the selection does not depend on the budget)
        if task.task_id in any_pair:
            stored_index = any_pair[task.task_id]["index"]
            state.failing = next((s for s in good if s.index == stored_index), None)
            if state.failing is not None:
                state.status = "pair"
                state.stored_selection = any_pair[task.task_id].get("selection", {})
                passing = state.stored_selection.get("first_passing")
                state.passing = next((s for s in good if s.index == passing), None)
                state.canonical = TestResult(True, "passed")
        elif task.task_id in done_tasks:
            state.status = done_tasks[task.task_id]["status"]
        elif not good:
            state.status = "no-loadable-sample"
        states.append(state)
    log(f"{len(states)} tasks with samples; {loaded_total} samples load, {unloadable_total} do not")

    if not args.summary_only:
        select_pairs(states, args.tasks, log)
        for state in states:
            if state.status in ("canonical-fails", "no-failing-sample", "no-loadable-sample") \
                    and state.task.task_id not in done_tasks:
                append_record(args.results, {"record": "task", **config, "task": state.task.task_id,
                                             "status": state.status, "selection": state.selection()})
    chosen = [s for s in states if s.status == "pair"][: args.tasks]
    if not args.summary_only:
        for number, state in enumerate(chosen, start=1):
            assert state.failing is not None
            if state.task.task_id not in done_pairs:
                record = check_pair(state, state.failing, args.model, args.budget, MODES)
                record = {"record": "pair", **config, "budget": args.budget, "selection": state.selection(),
                          **record}
                append_record(args.results, record)
                done_pairs[state.task.task_id] = record
                log(f"pair {number}/{len(chosen)} {state.task.task_id} {record['sample']}: "
                    + ", ".join(f"({m}) {record[m].get('status')} {record[m].get('engine', '')}".rstrip()
                                for m in MODES))
            if args.controls and state.passing is not None and state.task.task_id not in done_controls:
                record = check_pair(state, state.passing, args.model, args.budget, ("b",))
                record = {"record": "control", **config, "budget": args.budget, **record}
                append_record(args.results, record)
                done_controls[state.task.task_id] = record
                log(f"control {state.task.task_id} {record['sample']}: (b) {record['b'].get('status')}")

    chosen_ids = [s.task.task_id for s in chosen]
    last_chosen = chosen[-1].task.number if chosen else -1
    pairs = [done_pairs[t] for t in chosen_ids if t in done_pairs]
    controls = [done_controls[t] for t in chosen_ids if t in done_controls]
    skipped = [{"status": s.status} for s in states
               if s.status not in (None, "pair") and s.task.number <= last_chosen]
    counts = {
        "samples of the configuration that do not load (syntax, no entry point)": unloadable_total,
        "samples run through the tests this run": sum(len(s.tested) for s in states),
    }
    print()
    print(f"Real samples: {args.model} at temperature {args.temperature:g}, budget {args.budget:g} s per check, "
          f"engines {', '.join(DEFAULT_ENGINES)}")
    print(summarize(pairs, controls, skipped, counts))
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
