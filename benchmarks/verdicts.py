"""The figures of issue 31 ("every verdict earned"), measured on the ``divergent`` program as a user
runs it (a subprocess; the budget counts from the process's start):

* **budgets**: wall seconds past ``--budget`` for 2 to 300 implementations (one differing at
  ``x == 3``), and with a dead model endpoint (``--model M --base-url http://127.0.0.1:9/v1``) for
  ``check`` and ``cluster``; the verdict each gave, and whether the counterexample was shrunk;
* **interrupts**: seconds from SIGINT to the exit, and the exit code (130);
* **the warm-only difference**: the issue's Java program printing its main thread's id against a
  Python one printing 1: the verdict (never ``divergent``) and its note;
* **determinism**: the same seed, inputs and budget four times: how many distinct counterexamples.

Each figure is the median over ``--runs`` runs (the machine's load is reported: on a loaded
machine every figure is larger). Results: ``results/verdicts.jsonl``.

    python benchmarks/verdicts.py [--runs 3] [--only budgets,interrupts,warm,determinism]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCHMARKS_DIR = Path(__file__).resolve().parent
ROOT = BENCHMARKS_DIR.parent
RESULTS = BENCHMARKS_DIR / "results" / "verdicts.jsonl"
DEAD = "http://127.0.0.1:9/v1"
DOUBLE = "def f(x: int) -> int:\n    return x * 2 + {i} * 0\n"
DIFFERS = "def f(x: int) -> int:\n    if x == 3:\n        return 7\n    return x * 2\n"


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(home),
            "OPENAI_API_KEY": "sk-bench-not-a-real-key"}


def run(argv: list[str], folder: Path, *, interrupt_after: float | None = None) -> dict[str, Any]:
    """One command: its exit code, wall seconds, JSON document (when it printed one) and, when
    interrupted, the seconds from SIGINT to its exit."""
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "divergent", *argv], cwd=folder, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=_env(folder / "home"), start_new_session=True)
    to_exit = None
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        sent = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)
        out, _ = process.communicate(timeout=300)
        to_exit = time.monotonic() - sent
    else:
        out, _ = process.communicate(timeout=300)
    seconds = time.monotonic() - started
    try:
        document = json.loads(out)
    except ValueError:
        document = None
    return {"exit": process.returncode, "seconds": seconds, "document": document, "to_exit": to_exit}


def implementations(folder: Path, count: int) -> list[str]:
    """``count`` implementations of 2x, the last differing at x == 3."""
    paths = []
    for i in range(count):
        path = folder / f"m{i}.py"
        path.write_text(DIFFERS if i == count - 1 else DOUBLE.format(i=i))
        paths.append(str(path))
    return paths


def budgets(runs: int) -> list[dict[str, Any]]:
    rows = []
    cases: list[tuple[str, int, float, list[str]]] = [
        ("check", 2, 3.0, []), ("check", 40, 3.0, []), ("check", 200, 8.0, []), ("check", 300, 3.0, []),
        ("check", 2, 5.0, ["--model", "M", "--base-url", DEAD]),
        ("cluster", 3, 5.0, ["--model", "M", "--base-url", DEAD]),
    ]
    for command, count, budget, extra in cases:
        samples = []
        for _ in range(runs):
            with tempfile.TemporaryDirectory(prefix="divergent-bench-") as scratch:
                folder = Path(scratch)
                result = run([command, *implementations(folder, count), "-f", "f", "--budget", str(budget), "--json",
                              *extra], folder)
            document = result["document"] or {}
            counterexample = document.get("counterexample") or {}
            samples.append({"over": result["seconds"] - budget, "exit": result["exit"],
                            "verdict": document.get("verdict"), "reason": document.get("reason"),
                            "call": counterexample.get("call"),
                            "model_note": next((n for n in document.get("notes", []) if n.startswith("with --model")),
                                               None)})
        rows.append({"figure": "budget", "command": command, "implementations": count, "budget": budget,
                     "model": bool(extra), "over_median": statistics.median(s["over"] for s in samples),
                     "over_max": max(s["over"] for s in samples), "runs": samples})
    return rows


def interrupts(runs: int) -> list[dict[str, Any]]:
    samples = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="divergent-bench-") as scratch:
            folder = Path(scratch)
            a, b = folder / "a.py", folder / "b.py"
            a.write_text("def f(s: str) -> str:\n    return s.upper()\n")
            b.write_text("def f(s: str) -> str:\n    return ''.join(c.upper() for c in s)\n")
            result = run(["check", str(a), str(b), "-f", "f", "--budget", "60", "--json", "--db",
                          str(folder / "store.db")], folder, interrupt_after=4.0)
            samples.append({"exit": result["exit"], "to_exit": result["to_exit"],
                            "exit_reason": (result["document"] or {}).get("exit_reason")})
    return [{"figure": "interrupt", "to_exit_median": statistics.median(s["to_exit"] for s in samples),
             "exits": sorted({s["exit"] for s in samples}), "runs": samples}]


THREAD_ID = "public class Main {\n    public static void main(String[] args) {\n" \
            "        System.out.println(Thread.currentThread().getId());\n    }\n}\n"


def warm(runs: int) -> list[dict[str, Any]]:
    if shutil.which("javac") is None:
        return [{"figure": "warm-only", "skipped": "no javac"}]
    samples = []
    with tempfile.TemporaryDirectory(prefix="divergent-bench-") as scratch:
        folder = Path(scratch)
        (folder / "j").mkdir()
        (folder / "j" / "Main.java").write_text(THREAD_ID)
        (folder / "one.py").write_text("print(1)\n")
        (folder / "s.txt").write_text("5\n")
        for _ in range(runs):
            result = run(["check", str(folder / "j" / "Main.java"), str(folder / "one.py"), "--stdin", "--seeds",
                          str(folder / "s.txt"), "--budget", "20", "--json", "--build-cache", str(folder / "builds")],
                         folder)
            document = result["document"] or {}
            samples.append({"exit": result["exit"], "verdict": document.get("verdict"), "judged": document.get("judged"),
                            "warm_notes": sum("warm mode" in note for note in document.get("notes", []))})
    return [{"figure": "warm-only", "exits": sorted({s["exit"] for s in samples}), "runs": samples}]


WRAPS = "n = int(input())\nxs = list(map(int, input().split()))\ns = 0\nfor x in xs[:n]:\n" \
        "    s = (s + x + 2**31) % 2**32 - 2**31\nprint(s)\n"
SUMS = "n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs[:n]))\n"


def determinism(runs: int) -> list[dict[str, Any]]:
    found = []
    with tempfile.TemporaryDirectory(prefix="divergent-bench-") as scratch:
        folder = Path(scratch)
        (folder / "wraps.py").write_text(WRAPS)
        (folder / "sums.py").write_text(SUMS)
        (folder / "s.txt").write_text("3\n1 2 3\n")
        for _ in range(max(4, runs)):
            result = run(["check", str(folder / "wraps.py"), str(folder / "sums.py"), "--stdin", "--seeds",
                          str(folder / "s.txt"), "--seed", "7", "--budget", "30", "--json"], folder)
            document = result["document"] or {}
            counterexample = document.get("counterexample") or {}
            found.append({"stdin": counterexample.get("stdin"), "seconds": document.get("seconds"),
                          "cut_short": any("cut short" in note for note in document.get("notes", []))})
    return [{"figure": "determinism", "distinct": len({f["stdin"] for f in found}), "runs": found}]


FIGURES = {"budgets": budgets, "interrupts": interrupts, "warm": warm, "determinism": determinism}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default=",".join(FIGURES))
    arguments = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores; {arguments.runs} run(s) each")
    rows: list[dict[str, Any]] = []
    for name in arguments.only.split(","):
        for row in FIGURES[name](arguments.runs):
            rows.append(row)
            print(_line(row))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a") as stream:
        for row in rows:
            stream.write(json.dumps({"load": load, **row}) + "\n")


def _line(row: dict[str, Any]) -> str:
    figure = row["figure"]
    if figure == "budget":
        runs = row["runs"]
        verdicts = sorted({f"{r['exit']} {r['verdict']}" for r in runs})
        calls = sorted({r["call"] for r in runs if r["call"]})
        notes = sorted({r["model_note"] for r in runs if r["model_note"]})
        model = " with a dead endpoint" if row["model"] else ""
        return (f"{row['command']} {row['implementations']} implementations{model}, --budget {row['budget']:g}: "
                f"{row['over_median']:+.2f} s past the budget (max {row['over_max']:+.2f}); {', '.join(verdicts)}"
                + (f"; counterexample {', '.join(calls)}" if calls else "") + (f"; note: {notes[0]}" if notes else ""))
    if figure == "interrupt":
        return f"Ctrl-C: exit {row['exits']} in {row['to_exit_median']:.2f} s (median from SIGINT to exit)"
    if figure == "warm-only":
        if "skipped" in row:
            return f"warm-only difference: skipped ({row['skipped']})"
        runs = row["runs"]
        return (f"the Java thread id against print(1): exit {row['exits']}, verdicts "
                f"{sorted({r['verdict'] for r in runs})}, judged {[r['judged'] for r in runs]}, warm-only notes "
                f"{[r['warm_notes'] for r in runs]}")
    return (f"the same seed {len(row['runs'])} times: {row['distinct']} distinct counterexample(s) "
            f"{sorted({repr(r['stdin']) for r in row['runs']})}, cut short: {[r['cut_short'] for r in row['runs']]}")


if __name__ == "__main__":
    main()
