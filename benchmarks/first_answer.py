"""Where the time of a quick answer goes: ``divergent check a.py b.py -f f`` on a trivial difference
(``abs(x)`` against ``x``), end to end as a command, phase by phase.

Each run starts the command with ``DIVERGENT_TRACE`` set (``divergent/trace.py``: monotonic stamps of
the phases, written at exit) and notes, on the same clock, when it started the process and when the
process ended; so the breakdown covers the interpreter's start before the first stamp and its exit
after the last. Figures are medians over ``--runs`` runs; each run also reports the CPU seconds of the
whole process tree (the command, its sandboxed workers), which a loaded machine inflates less than
wall seconds.

``--src DIR`` (repeatable) compares source trees (``PYTHONPATH=DIR``: e.g. the code before and after a
change, extracted with ``git archive``); their runs alternate, so each tree sees the same load. The
trees' bytecode is compiled first (``compileall``), as an installed package's is.

    python benchmarks/first_answer.py floor [--runs 10] [--src DIR ...] [--json]    # text report (default)
    python benchmarks/first_answer.py imports [--src DIR]                           # -X importtime, grouped

Results: ``results/first_answer.jsonl`` (one line per run: tree, wall, CPU, stamps).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

BENCHMARKS_DIR = Path(__file__).resolve().parent
ROOT = BENCHMARKS_DIR.parent
RESULTS = BENCHMARKS_DIR / "results" / "first_answer.jsonl"
PAIR = {"a.py": "def f(x: int) -> int:\n    return abs(x)\n", "b.py": "def f(x: int) -> int:\n    return x\n"}


def environment(src: Path, trace: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DIVERGENT_TRACE", "PYTHONDONTWRITEBYTECODE")}
    env.update(PYTHONPATH=str(src), NO_COLOR="1", COLUMNS="100")
    if trace is not None:
        env["DIVERGENT_TRACE"] = str(trace)
    return env


def command(json_output: bool) -> list[str]:
    return [sys.executable, "-m", "divergent", "check", "a.py", "b.py", "-f", "f", *(["--json"] if json_output else [])]


def one_run(src: Path, where: Path, json_output: bool) -> dict[str, Any]:
    """One traced run: wall seconds, CPU seconds of the process tree, the stamps (ms from the start)."""
    trace = where / "trace.jsonl"
    trace.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    process = subprocess.run(command(json_output), cwd=where, env=environment(src, trace), capture_output=True, text=True,
                             timeout=120, check=False)
    ended = time.monotonic()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stamps = [json.loads(line) for line in trace.read_text().splitlines()] if trace.exists() else []
    return {
        "src": str(src), "exit": process.returncode, "wall": round(ended - started, 4),
        "cpu": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 4),
        "found": process.returncode == 1,
        "stamps": [(s["mark"], round((s["t"] - started) * 1000, 2), s["thread"], round(s.get("cpu", 0.0) * 1000, 2))
                   for s in stamps],
        "end_ms": round((ended - started) * 1000, 2),
    }


def phases(run: dict[str, Any]) -> list[tuple[str, float, float | None]]:
    """The main thread's path: (stamp, wall ms from the previous stamp, the process's CPU ms over the
    same stretch, every thread); the start is the process's creation (its CPU until the first stamp
    counts from 0), the end its exit as the parent saw it."""
    out: list[tuple[str, float, float | None]] = []
    previous = previous_cpu = 0.0
    for name, moment, thread, cpu in run["stamps"]:
        if thread != "MainThread":
            continue
        out.append((name, moment - previous, cpu - previous_cpu))
        previous, previous_cpu = moment, cpu
    out.append(("(interpreter exit, seen by the parent)", run["end_ms"] - previous, None))
    return out


def first_moments(run: dict[str, Any]) -> dict[str, float]:
    """ms from the start to the first stamp of each name (any thread)."""
    seen: dict[str, float] = {}
    for name, moment, _, _ in run["stamps"]:
        seen.setdefault(name, moment)
    return seen


def summarize_floor(runs: list[dict[str, Any]], trees: list[str]) -> str:
    lines = []
    for tree in trees:
        mine = [r for r in runs if r["src"] == tree]
        if not mine:
            continue
        walls = [r["wall"] for r in mine]
        cpus = [r["cpu"] for r in mine]
        lines += [f"### {tree}", "",
                  f"{len(mine)} runs, found {sum(r['found'] for r in mine)}: wall median {statistics.median(walls):.3f} s "
                  f"(min {min(walls):.3f}, max {max(walls):.3f}); CPU of the process tree median "
                  f"{statistics.median(cpus):.3f} s", "",
                  "| main thread, up to the stamp | median ms | CPU ms (the process) | since the start (median) |",
                  "|---|---|---|---|"]
        steps: dict[str, list[float]] = defaultdict(list)
        cpus: dict[str, list[float]] = defaultdict(list)
        ends: dict[str, list[float]] = defaultdict(list)
        order: list[str] = []
        for run in mine:
            total = 0.0
            counts: dict[str, int] = defaultdict(int)
            for name, ms, cpu in phases(run):
                counts[name] += 1
                key = name if counts[name] == 1 else f"{name} #{counts[name]}"
                if key not in order:
                    order.append(key)
                total += ms
                steps[key].append(ms)
                ends[key].append(total)
                if cpu is not None:
                    cpus[key].append(cpu)
        for key in order:
            cpu = f"{statistics.median(cpus[key]):.1f}" if cpus[key] else "-"
            lines.append(f"| {key} | {statistics.median(steps[key]):.1f} | {cpu} | {statistics.median(ends[key]):.1f} |")
        others: dict[str, list[float]] = defaultdict(list)
        for run in mine:
            for name, moment, thread, _ in run["stamps"]:
                if thread != "MainThread":
                    others[name].append(moment)
        if others:
            firsts: dict[str, list[float]] = defaultdict(list)
            for run in mine:
                for name, moment in first_moments(run).items():
                    firsts[name].append(moment)
            lines += ["", "| other threads: first stamp | median ms since the start |", "|---|---|"]
            for name in sorted(others, key=lambda n: statistics.median(firsts[n])):
                lines.append(f"| {name} | {statistics.median(firsts[name]):.1f} |")
        lines.append("")
    return "\n".join(lines)


def floor(options: argparse.Namespace) -> int:
    trees = [Path(s).resolve() for s in (options.src or [str(ROOT / "src")])]
    for tree in trees:
        compileall.compile_dir(str(tree), quiet=1)
    load = os.getloadavg()
    runs = []
    with tempfile.TemporaryDirectory(prefix="divergent-first-") as directory:
        where = Path(directory)
        for name, source in PAIR.items():
            (where / name).write_text(source)
        for tree in trees:  # one unmeasured run each: the page cache, the build of nothing
            one_run(tree, where, options.json)
        for _ in range(options.runs):
            for tree in trees:
                run = one_run(tree, where, options.json)
                run["load"] = os.getloadavg()[0]
                runs.append(run)
    RESULTS.parent.mkdir(exist_ok=True)
    with RESULTS.open("a") as stream:
        for run in runs:
            stream.write(json.dumps({**run, "json_output": options.json, "date": time.strftime("%Y-%m-%d %H:%M")}) + "\n")
    after = os.getloadavg()
    print(f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f} "
          f"({os.cpu_count()} cores); output: {'--json' if options.json else 'text report'}\n")
    print(summarize_floor(runs, [str(t) for t in trees]))
    return 0


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def imports(options: argparse.Namespace) -> int:
    """Self time of every module imported by the command, summed per top-level package (divergent's
    per subpackage)."""
    tree = Path(options.src[0] if options.src else ROOT / "src").resolve()
    compileall.compile_dir(str(tree), quiet=1)
    with tempfile.TemporaryDirectory(prefix="divergent-first-") as directory:
        where = Path(directory)
        for name, source in PAIR.items():
            (where / name).write_text(source)
        groups: dict[str, list[int]] = defaultdict(list)
        for _ in range(options.runs):
            process = subprocess.run([sys.executable, "-X", "importtime", *command(options.json)[1:]], cwd=where,
                                     env=environment(tree, None), capture_output=True, text=True, timeout=120, check=False)
            totals: dict[str, int] = defaultdict(int)
            for line in process.stderr.splitlines():
                match = _IMPORT_LINE.match(line)
                if match:
                    name = match.group(4)
                    parts = name.split(".")
                    group = ".".join(parts[:2]) if parts[0] == "divergent" and len(parts) > 1 else parts[0]
                    totals[group] += int(match.group(1))
            for group, micros in totals.items():
                groups[group].append(micros)
    ranked = sorted(groups.items(), key=lambda item: -statistics.median(item[1]))
    total = sum(statistics.median(v) for v in groups.values())
    print(f"imports of `divergent check` ({tree}), median of {options.runs} runs: {total / 1000:.1f} ms in all\n")
    print("| package | ms (self time of its modules) |\n|---|---|")
    for group, micros in ranked[: options.top]:
        print(f"| {group} | {statistics.median(micros) / 1000:.1f} |")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("floor", "imports"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--src", action="append", help="a source tree to run (repeatable; default: this checkout's src)")
    parser.add_argument("--json", action="store_true", help="--json output instead of the text report")
    parser.add_argument("--top", type=int, default=25)
    options = parser.parse_args()
    return floor(options) if options.what == "floor" else imports(options)


if __name__ == "__main__":
    sys.exit(main())
