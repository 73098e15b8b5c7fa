"""Equivalence-judge benchmarks: divergent's execution judge on the EquiBench data we have,
the CETBench generator's throughput and rejection rates, and the execution judge on generated pairs,
beside the best LLM figures the papers report.

    PYTHONPATH=src DIVERGENT_BENCH_DATA=../shared/data/difftrust .venv/bin/python \\
        benchmarks/equivalence_judges.py [--count 40] [--budget 4] [--skip-generation]

EquiBench here: the shipped CUDA category (400 real pairs) and the authors' 24 few-shot exemplars
(4 per category: DCE, CUDA, x86-64, OJ_A, OJ_V, OJ_VA), plus OJ-style pairs with statements written
for this benchmark. The other 2,000 pairs of EquiBench are on the Hugging Face hub, out of reach
here: point ``--data`` at a download (DIR/<CATEGORY>/pairs.json) to measure on them.
Results: ``benchmarks/results/equivalence_judges.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from divergent.bench.benchmark import Workbench
from divergent.bench.binary import Confusion, percent
from divergent.bench.equibench.data import Category, Pair, load_equibench, load_exemplars
from divergent.bench.equibench.execution import ExecutionSettings, execute_pair

ROOT = Path(__file__).resolve().parents[1]
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if (p / "data").is_dir()),
              ROOT.parent / "shared")
RESULTS = ROOT / "benchmarks" / "results" / "equivalence_judges.jsonl"

#: the best model's accuracy per category in the EquiBench paper (Table 2, 0-shot), in %
PAPER_BEST = {"DCE": "68.8 (o3-mini)", "CUDA": "62.3 (Claude 3.5 Sonnet); o3-mini 59.0", "x86-64": "84.5 (o3-mini)",
              "OJ_A": "84.2 (o3-mini)", "OJ_V": "91.5 (DeepSeek-R1)", "OJ_VA": "83.2 (o3-mini)",
              "overall": "78.0 (o3-mini)"}

_SUM = "<h3>Problem</h3><p>Read <var>n</var> (1 &le; n &le; 10<sup>5</sup>) and print 1 + 2 + ... + n.</p>" \
       "<h3>Sample Input 1</h3><pre>3\n</pre><h3>Sample Output 1</h3><pre>6\n</pre>"
_MAX = "<p>Read <var>N</var> (1 &le; N &le; 100) integers <var>A_i</var> (-10<sup>9</sup> &le; A_i &le; " \
       "10<sup>9</sup>) on one line and print the largest.</p><h3>Sample Input 1</h3><pre>3 9 2\n</pre>" \
       "<h3>Sample Output 1</h3><pre>9\n</pre>"
_LOOP = "n = int(input())\ntotal = 0\nfor i in range(1, n + 1):\n    total += i\nprint(total)\n"
_MAXIMUM = "values = list(map(int, input().split()))\nprint(max(values))\n"
#: OJ-style pairs with statements (category, equivalent, statement, program 1, program 2)
OJ_PAIRS = [
    (Category.OJ_A, True, _SUM, _LOOP, "n = int(input())\nprint(n * (n + 1) // 2)\n"),
    (Category.OJ_A, False, _SUM, _LOOP, "n = int(input())\nprint(n * (n + 1) // 2 if n < 1000 else n * n // 2)\n"),
    (Category.OJ_A, False, _SUM, _LOOP, "n = int(input())\nprint(n * (n + 1) / 2)\n"),
    (Category.OJ_A, True, _MAX, _MAXIMUM, "values = sorted(map(int, input().split()))\nprint(values[-1])\n"),
    (Category.OJ_A, False, _MAX, _MAXIMUM, "print(max(input().split()))\n"),
    (Category.OJ_V, True, _MAX, _MAXIMUM, "a = list(map(int, input().split()))\nprint(max(a))\n"),
    (Category.OJ_V, False, _MAX, _MAXIMUM, "a = list(map(int, input().split()))\nprint(max(a[1:]))\n"),
    (Category.OJ_VA, True, _SUM, _LOOP, "v0 = int(input())\nv1 = 0\nwhile v0:\n    v1 += v0\n    v0 -= 1\nprint(v1)\n"),
    (Category.OJ_VA, False, _MAX, _MAXIMUM,
     "v = list(map(int, input().split()))\nb = 0\nfor x in v:\n    b = x if x > b else b\nprint(b)\n"),
]


def equibench_execution(budget: float, data: Path | None) -> list[dict]:
    """The execution judge on every pair we have: accuracy (over the pairs it decided) and coverage."""
    pairs: list[tuple[str, Pair]] = []
    shipped = load_equibench(data or SHARED / "data" / "equibench")
    pairs += [("EquiBench", p) for p in shipped.pairs]
    pairs += [("exemplars", p) for p in load_exemplars(SHARED / "data" / "equibench" / "fewshot_exemplars.jsonl")]
    pairs += [("OJ pairs written here", Pair(c, f"oj{i}", a, b, eq, problem_html=s))
              for i, (c, eq, s, a, b) in enumerate(OJ_PAIRS)]
    settings = ExecutionSettings(budget=budget, x86_inputs=128)
    rows: dict[tuple[str, str], dict] = {}
    for source, pair in pairs:
        started = time.monotonic()
        result = execute_pair(pair, settings)
        row = rows.setdefault((source, pair.category.value), {"decisions": [], "pairs": 0, "seconds": 0.0,
                                                             "not_executable": {}, "false_witnesses": 0})
        row["pairs"] += 1
        row["seconds"] += time.monotonic() - started
        if result.prediction is None:
            reason = result.reason.split(":")[0][:60]
            row["not_executable"][reason] = row["not_executable"].get(reason, 0) + 1
        else:
            row["decisions"].append((pair.equivalent, result.prediction))
            if result.prediction is False and pair.equivalent:
                row["false_witnesses"] += 1
    out = []
    for (source, category), row in rows.items():
        confusion = Confusion.of(row["decisions"])
        out.append({
            "benchmark": "equibench-execution", "source": source, "category": category, "pairs": row["pairs"],
            "decided": confusion.total, "coverage": confusion.total / row["pairs"], "accuracy": confusion.accuracy,
            "accuracy_equivalent": confusion.accuracy_equivalent,
            "accuracy_inequivalent": confusion.accuracy_inequivalent, "false_witnesses": row["false_witnesses"],
            "not_executable": row["not_executable"], "seconds_per_pair": row["seconds"] / row["pairs"],
            "paper_best_llm": PAPER_BEST.get(category, "-"),
        })
    return out


def cetbench_generation(count: int, seed: int, check_executions: int, out: Path) -> dict:
    from divergent.bench.cetbench.generate import GeneratorSettings, PairGenerator
    from divergent.bench.cetbench.pairs import load_material

    tasks, samples = load_material("humaneval")
    generator = PairGenerator(tasks, samples, GeneratorSettings(count=count, seed=seed,
                                                                check_executions=check_executions))
    with out.open("w") as stream:
        def write(pair, index, total):
            if pair is not None:
                stream.write(json.dumps(pair.as_dict(seed)) + "\n")
            print(f"\r  pairs {index + 1}/{total}", end="", file=sys.stderr, flush=True)

        stats = generator.run(on_pair=write)
    print(file=sys.stderr)
    return {"benchmark": "cetbench-generation", "tasks": "humaneval", "count": count, "seed": seed,
            "check_executions": check_executions, **stats.as_dict()}


def cetbench_execution(pairs_file: Path, budget: float) -> dict:
    from divergent.bench.cetbench.run import CetConfig, run_cetbench, summarize, summary_json
    from divergent.bench.equibench.run import JudgeKind
    from divergent.store import Store

    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "store.sqlite3") as store:
        run = run_cetbench(CetConfig(pairs=str(pairs_file), judge=JudgeKind.EXECUTION, originals=True,
                                     budget=budget), Workbench(store)).run
        document = summary_json(summarize(store, run))
    return {"benchmark": "cetbench-execution", "budget": budget, "perturbed": document["summary"]["perturbed"],
            "originals": document["summary"]["originals"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=float, default=4.0, help="execution judge: seconds per pair")
    parser.add_argument("--count", type=int, default=40, help="CETBench pairs to generate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check-executions", type=int, default=2000)
    parser.add_argument("--data", type=Path, default=None, help="an EquiBench download (DIR/<CATEGORY>/pairs.json)")
    parser.add_argument("--skip-generation", action="store_true")
    arguments = parser.parse_args()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    records = equibench_execution(arguments.budget, arguments.data)
    print("\n## EquiBench: divergent's execution judge (no model)\n")
    print("| data | category | pairs | coverage | accuracy (decided) | eq | ineq | false witnesses | s/pair "
          "| best LLM in the paper (all 400 pairs) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in records:
        print(f"| {r['source']} | {r['category']} | {r['pairs']} | {percent(r['coverage'])} | {percent(r['accuracy'])} "
              f"| {percent(r['accuracy_equivalent'])} | {percent(r['accuracy_inequivalent'])} | {r['false_witnesses']} "
              f"| {r['seconds_per_pair']:.2f} | {r['paper_best_llm']} |")
    if not arguments.skip_generation:
        pairs_file = RESULTS.parent / "cetbench_pairs.jsonl"
        generation = cetbench_generation(arguments.count, arguments.seed, arguments.check_executions, pairs_file)
        records.append(generation)
        print("\n## CETBench generator (HumanEval ground truths + recorded samples)\n")
        print(f"{generation['pairs']} pairs ({generation['dropped']} dropped) in {generation['seconds']:.0f} s: "
              f"{generation['pairs_per_minute']} pairs/min; {generation['test_runs']} versions tested, "
              f"{generation['checks']} divergent checks\n")
        print("| step | tried | accepted | rejected |\n|---|---:|---:|---:|")
        for name, row in generation["steps"].items():
            print(f"| {name} | {row['tried']} | {row['accepted']} | {percent(row['rejection_rate'], 0)}% |")
        print("\nrejections: " + "; ".join(f"{k}: {v}" for k, v in {**generation["rejections"],
                                                                     **generation["originals_rejected"]}.items()))
        judged = cetbench_execution(pairs_file, arguments.budget)
        records.append(judged)
        print("\n## CETBench pairs judged by divergent's execution judge\n")
        print("| pairs | Avg | W-Avg | PosF1 | NegF1 | coverage |\n|---|---:|---:|---:|---:|---:|")
        for name in ("originals", "perturbed"):
            m = judged[name]
            if m:
                print(f"| {name} ({m['pairs']}) | {percent(m['accuracy'])} | {percent(m['w_avg'])} | "
                      f"{percent(m['f1_positive'])} | {percent(m['f1_negative'])} | {percent(m['coverage'])} |")
        print("\nCETBench's best LLM (GPT-5-nano, perturbed pairs, its Table 2): Avg 90.5, W-Avg 88.5, PosF1 72.9, "
              "NegF1 91.5")
    with RESULTS.open("a") as stream:
        for record in records:
            stream.write(json.dumps({"time": time.strftime("%Y-%m-%dT%H:%M:%S"), **record}) + "\n")


if __name__ == "__main__":
    main()
