"""Engine power: which engine finds which difference, how fast, and whether any claims a false one.

For every pair of the suite (``benchmarks/pairs``, see ``suite.py``) and every configuration (each
engine alone, and the whole portfolio), run ``divergent.check`` with a budget (default 20 s) and
record found/missed and the time to the first confirmed counterexample (before shrinking). On
equivalent pairs any claim is a false claim (the aim is zero). Results go to
``benchmarks/results/engine_power.jsonl`` (one line per pair and configuration; a rerun skips
what is stored, ``--fresh`` starts over), then a table is printed, side by side with the baselines
(``baselines.py``: ``crosshair diffbehavior`` and Hypothesis' ghostwriter) when their results exist.

Usage: ``python benchmarks/engine_power.py [--budget 20] [--configs portfolio,mutation,...] [--pairs a,b]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import divergent
from divergent.records import Budget
from suite import Pair, load_pairs, parse_pair_names

RESULTS = Path(__file__).resolve().parent / "results"
CONFIGS = {
    "portfolio": None,
    "seeds+mutation": "seeds,mutation",
    "hypothesis": "hypothesis",
    "symbolic": "symbolic",
}


def measure(pair: Pair, config: str, budget: float) -> dict:
    engines = CONFIGS[config]
    started = time.monotonic()
    try:
        report = divergent.check(
            [str(pair.directory / "a.py"), str(pair.directory / "b.py")],
            function=pair.function,
            budget=Budget(seconds=budget),
            engines=engines,
            shrink=False,
        )
    except divergent.DivergentError as error:
        return {"pair": pair.name, "config": config, "found": False, "error": str(error),
                "seconds": round(time.monotonic() - started, 3), "equivalent": pair.equivalent}
    found = report.divergent
    return {
        "pair": pair.name,
        "config": config,
        "equivalent": pair.equivalent,
        "category": pair.category,
        "found": found,
        "false_claim": found and pair.equivalent,
        "seconds": report.seconds,
        "engine": report.counterexample.engine if report.counterexample else None,
        "call": report.counterexample.call if report.counterexample else None,
        "executions": report.executions,
        "notes": list(report.notes),
    }


def load_records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def summarize(records: list[dict], baselines: list[dict], configs: list[str]) -> str:
    by_key = {(r["pair"], r["config"]): r for r in records}
    # Baseline tools get a prefix: "hypothesis" is both our engine and the ghostwriter's package.
    base = {(r["pair"], f"ext:{r['tool']}"): r for r in baselines}
    tools = sorted({f"ext:{r['tool']}" for r in baselines})
    pairs = sorted({r["pair"] for r in records})
    equivalent = {r["pair"]: r["equivalent"] for r in records}
    columns = configs + tools
    lines = [f"{'pair':32} " + " ".join(f"{c[:14]:>14}" for c in columns)]
    for name in pairs:
        cells = []
        for column in columns:
            record = by_key.get((name, column)) or base.get((name, column))
            if record is None:
                cells.append(f"{'-':>14}")
            elif record.get("found"):
                mark = "FALSE" if equivalent.get(name) else f"{record['seconds']:.2f}s"
                cells.append(f"{mark:>14}")
            else:
                cells.append(f"{'ok' if equivalent.get(name) else 'missed':>14}")
        lines.append(f"{name[:32]:32} " + " ".join(cells))
    lines.append("")
    inequivalent = [p for p in pairs if not equivalent[p]]
    equivalents = [p for p in pairs if equivalent[p]]
    lines.append(f"{len(inequivalent)} inequivalent pairs, {len(equivalents)} equivalent pairs")
    for column in columns:
        source = by_key if column in configs else base
        found = [source[(p, column)] for p in inequivalent if (p, column) in source and source[(p, column)].get("found")]
        false = [p for p in equivalents if (p, column) in source and source[(p, column)].get("found")]
        times = [r["seconds"] for r in found]
        median = f"{statistics.median(times):.2f}s" if times else "-"
        lines.append(f"  {column:20} found {len(found):3}/{len(inequivalent)}  median {median:>8}  false claims {len(false)}")
    if baselines:
        any_tool = {p for p in inequivalent for t in tools if base.get((p, t), {}).get("found")}
        missed = sorted(p for p in any_tool if not by_key.get((p, "portfolio"), {}).get("found"))
        lines.append(f"  found by a baseline but missed by the portfolio: {missed or 'none'}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=20.0)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--pairs", default=None)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--summary-only", action="store_true")
    options = parser.parse_args()
    configs = [c for c in options.configs.split(",") if c]
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "engine_power.jsonl"
    if options.fresh and path.exists():
        path.unlink()
    records = load_records(path)
    done = {(r["pair"], r["config"]) for r in records}
    if not options.summary_only:
        for pair in load_pairs(parse_pair_names(options.pairs)):
            for config in configs:
                if (pair.name, config) in done:
                    continue
                record = measure(pair, config, options.budget)
                records.append(record)
                with path.open("a") as out:
                    out.write(json.dumps(record) + "\n")
                mark = "FOUND" if record["found"] else "-"
                print(f"{pair.name:32} {config:16} {mark:6} {record['seconds']:6.2f}s", flush=True)
    baselines = load_records(RESULTS / "baselines.jsonl")
    print()
    print(summarize(records, baselines, configs))


if __name__ == "__main__":
    main()
