"""How much a search's result depends on its seed: each pair checked with several ``--seed`` values.

For every differing pair of the suites (``suite.py``: ``pairs``, ``heldout``) and every seed,
``divergent check pair_a.py pair_b.py --function F --budget B --seed S --json`` runs end to end as a
command (the pair staged as in ``side_by_side.py``). Per pair: found over seeds, the seconds of
each; overall: found/total per seed, the pairs some seeds find and others miss (a result that is
luck), and the spread of the seconds. Each record keeps the engines' diversity (distinct
behaviours, inputs since a new one, restarts). ``--src DIR`` (repeatable) runs other source trees
too (the code before and after a change), alternating per pair and seed so they share the
machine's load; the trees' bytecode is compiled first. Each record notes the load average.

    python benchmarks/seed_variance.py [--suite heldout] [--seeds 0,1,2] [--budget 10] [--pairs a,b]
                                       [--src DIR ...] [--out results/seed_variance.jsonl] [--summary-only]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import side_by_side
from suite import BENCHMARKS_DIR, SUITES, Pair, compare_on_call, load_pairs, parse_pair_names, stage_pair

ROOT = BENCHMARKS_DIR.parent


def run_divergent(pair: Pair, src: Path, seed: int, budget: float, grace: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="divergent-seeds-") as directory:
        staged = Path(directory)
        stage_pair(pair, staged)
        command = [side_by_side.PYTHON, "-m", "divergent", "check", "pair_a.py", "pair_b.py", "--function",
                   pair.function, "--budget", f"{budget:g}", "--seed", str(seed), "--json"]
        environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        environment.update(PYTHONPATH=f"{src}:{staged}", PYTHONHASHSEED="0", NO_COLOR="1")
        started = time.monotonic()
        try:
            process = subprocess.run(command, cwd=staged, env=environment, capture_output=True, text=True,
                                     timeout=budget + grace, check=False)
            out, killed = process.stdout, False
        except subprocess.TimeoutExpired as expired:
            out, killed = (expired.stdout or b"").decode() if isinstance(expired.stdout, bytes) else (expired.stdout or ""), True
        seconds = time.monotonic() - started
    record: dict[str, Any] = {"pair": pair.name, "src": str(src), "seed": seed, "seconds": round(seconds, 3),
                              "killed": killed, "budget": budget}
    try:
        report = json.loads(out)
    except json.JSONDecodeError:
        return {**record, "found": False, "detail": "no report"}
    counterexample = report.get("counterexample")
    found = report.get("verdict") == "divergent" and counterexample is not None
    if found:
        found = compare_on_call(pair, counterexample["call"]).get("differs") is not False
    return {**record, "found": found, "engine": report.get("engine"), "inputs": report.get("inputs"),
            "call": counterexample["call"] if counterexample else None,
            "engines": {e["name"]: {k: e.get(k) for k in ("inputs", "novel", "behaviours", "since_novel", "restarts")}
                        for e in report.get("engines", [])}}


def summarize(records: list[dict[str, Any]], seeds: list[int]) -> str:
    lines = []
    for src in sorted({r["src"] for r in records}):
        mine = [r for r in records if r["src"] == src]
        pairs = sorted({r["pair"] for r in mine})
        by = {(r["pair"], r["seed"]): r for r in mine}
        lines += [f"### {src}", "", "| seed | found | median s (found) |", "|---|---|---|"]
        for seed in seeds:
            rows = [by[(p, seed)] for p in pairs if (p, seed) in by]
            times = [r["seconds"] for r in rows if r["found"]]
            lines.append(f"| {seed} | {sum(r['found'] for r in rows)}/{len(rows)} | "
                         f"{statistics.median(times):.2f} |" if times else f"| {seed} | 0/{len(rows)} | - |")
        counts = [sum(by[(p, s)]["found"] for p in pairs if (p, s) in by) for s in seeds]
        luck = []
        spreads = []
        for pair in pairs:
            rows = [by[(pair, s)] for s in seeds if (pair, s) in by]
            hits = [r for r in rows if r["found"]]
            if 0 < len(hits) < len(rows):
                luck.append(f"{pair} ({len(hits)}/{len(rows)}: " + ", ".join(
                    f"seed {r['seed']} {format(r['seconds'], '.1f') + 's' if r['found'] else 'missed'}" for r in rows) + ")")
            if len(hits) >= 2:
                times = [r["seconds"] for r in hits]
                spreads.append(max(times) / max(min(times), 1e-3))
        always = sum(all(by[(p, s)]["found"] for s in seeds if (p, s) in by) for p in pairs)
        ever = sum(any(by[(p, s)]["found"] for s in seeds if (p, s) in by) for p in pairs)
        lines += [
            "",
            f"pairs: {len(pairs)}; found under every seed: {always}; under some seed: {ever}; found/total per seed: "
            f"mean {statistics.mean(counts):.1f}, min {min(counts)}, max {max(counts)} "
            f"(stdev {statistics.pstdev(counts):.2f})" if counts else "",
            f"found by some seeds and missed by others ({len(luck)}): {'; '.join(luck) or 'none'}",
            f"slowest/fastest seed on pairs found by 2+ seeds: median {statistics.median(spreads):.2f}x, "
            f"max {max(spreads):.2f}x" if spreads else "",
            "",
        ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=[*SUITES, "all"], default="all")
    parser.add_argument("--pairs", default=None)
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--budget", type=float, default=10.0)
    parser.add_argument("--grace", type=float, default=10.0)
    parser.add_argument("--src", action="append", help="a source tree to run (repeatable; default: this checkout's src)")
    parser.add_argument("--out", type=Path, default=BENCHMARKS_DIR / "results" / "seed_variance.jsonl")
    parser.add_argument("--summary-only", action="store_true")
    options = parser.parse_args()
    seeds = [int(s) for s in options.seeds.split(",")]
    trees = [Path(s).resolve() for s in (options.src or [str(ROOT / "src")])]
    records = [json.loads(line) for line in options.out.read_text().splitlines()] if options.out.exists() else []
    if not options.summary_only:
        for tree in trees:
            compileall.compile_dir(str(tree), quiet=1)
        done = {(r["pair"], r["src"], r["seed"]) for r in records}
        suites = tuple(SUITES) if options.suite == "all" else (options.suite,)
        names = parse_pair_names(options.pairs)
        options.out.parent.mkdir(exist_ok=True)
        print(f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)", flush=True)
        for pair in load_pairs(names, suites):
            if pair.equivalent:
                continue
            for seed in seeds:
                for tree in trees:
                    if (pair.name, str(tree), seed) in done:
                        continue
                    record = run_divergent(pair, tree, seed, options.budget, options.grace)
                    record["load"] = round(os.getloadavg()[0], 2)
                    records.append(record)
                    with options.out.open("a") as stream:
                        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
                    print(f"{pair.name:44} seed {seed} {tree.parent.name:12} {'found' if record['found'] else '-':6} "
                          f"{record['seconds']:6.2f}s {record.get('engine') or ''}", flush=True)
    print()
    print(summarize([r for r in records if r["seed"] in seeds], seeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
