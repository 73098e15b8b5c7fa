"""What one ``divergent diff`` saves over a ``divergent check`` per function: a repository made here
with a module of 50 functions, one commit changing all of them, then the same 50 comparisons as one
``divergent diff HEAD~1 HEAD`` (one process, warm workers reloaded per function; ``--jobs 1`` and 2)
and as 50 ``divergent check HEAD~1:m.py:f HEAD:m.py:f`` commands, each end to end.

Two changes: ``changed`` (every function returns something else: each search stops at its first
confirmed difference, so start-up is most of a check's time) and ``refactored`` (every function is
rewritten without a change: each search uses its whole budget, ``--budget-per-function`` for the
diff, ``--budget`` for each check).

    python benchmarks/diff_speed.py [--functions 50] [--budget 10] [--budget-refactored 2] [--checks 50]

A check's ``--budget`` counts from its process's start (start-up included); a diff's per-function
budget counts once the function's workers are loaded, so on a refactoring the diff also judges more
inputs per function (``inputs``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DIVERGENT = [sys.executable, "-m", "divergent"]


def _module(count: int, variant: str) -> str:
    lines = []
    for index in range(count):
        if variant == "base":
            body = f"    total = 0\n    for item in items:\n        total += item * {index + 2}\n    return total - n"
        elif variant == "changed":
            body = f"    total = 0\n    for item in items:\n        total += item * {index + 2}\n    return total - n + 1"
        else:
            body = f"    return sum(item * {index + 2} for item in items) - n"
        lines.append(f"def f{index}(items: list[int], n: int) -> int:\n{body}\n\n")
    return "\n".join(lines)


def _repository(root: Path, count: int, variant: str) -> Path:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    root.mkdir()
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    for message, text in (("base", _module(count, "base")), (variant, _module(count, variant))):
        (root / "m.py").write_text(text)
        subprocess.run([*git, "add", "-A"], cwd=root, check=True)
        subprocess.run([*git, "commit", "-qm", message], cwd=root, check=True)
    return root


def _timed(command: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    return time.monotonic() - started, done


def measure(variant: str, count: int, budget: float, checks: int) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        repo = _repository(Path(scratch) / "repo", count, variant)
        results = {}
        for jobs in (1, 2):
            seconds, done = _timed([*DIVERGENT, "diff", "HEAD~1", "HEAD", "--budget-per-function", str(budget),
                                    "--jobs", str(jobs), "--json"], repo)
            document = json.loads(done.stdout)
            summary = {key: value for key, value in document["summary"].items() if value and key != "symbols_changed"}
            results[f"diff --jobs {jobs}"] = {"seconds": round(seconds, 1), "statuses": summary,
                                              "inputs": sum(r.get("inputs") or 0 for r in document["functions"])}
        per_check = []
        inputs = 0
        verdicts: dict[str, int] = {}
        for index in range(checks):
            seconds, done = _timed([*DIVERGENT, "check", f"HEAD~1:m.py:f{index}", f"HEAD:m.py:f{index}", "--budget",
                                    str(budget), "--json"], repo)
            per_check.append(seconds)
            document = json.loads(done.stdout)
            verdicts[document["verdict"]] = verdicts.get(document["verdict"], 0) + 1
            inputs += document.get("inputs") or 0
        total = sum(per_check) * count / checks
        results[f"{count} x check"] = {"seconds": round(total, 1), "measured": checks, "verdicts": verdicts,
                                       "per_check": round(sum(per_check) / checks, 2), "inputs": inputs}
        return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--functions", type=int, default=50)
    parser.add_argument("--budget", type=float, default=10.0,
                        help="seconds per function when every function changed (each search stops at its difference)")
    parser.add_argument("--budget-refactored", type=float, default=2.0,
                        help="seconds per function when none changed (each search uses all of it)")
    parser.add_argument("--checks", type=int, default=50, help="checks run (the total is scaled to --functions)")
    args = parser.parse_args()
    for variant, budget in (("changed", args.budget), ("refactored", args.budget_refactored)):
        results = measure(variant, args.functions, budget, args.checks)
        print(f"{variant}: {args.functions} functions, budget {budget} s each")
        for name, figures in results.items():
            print(f"  {name:16} {figures['seconds']:7.1f} s  {json.dumps({k: v for k, v in figures.items() if k != 'seconds'})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
