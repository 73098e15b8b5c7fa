"""What the command line's own machinery costs a run (issue 36): the modules a ``check --json`` loads
(rich among them or not), what importing rich costs, finding the project's ``[tool.divergent]``
table, checking the output files before the search, a usage error end to end, ``--help``.

    .venv/bin/python benchmarks/cli_startup.py [--runs 7]

Prints one figure per line (medians over ``--runs`` fresh interpreters where a fresh one matters).
The machine's load moves the absolute numbers; compare figures taken together."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_NO_CONFIG": "1"}
SAME, OFF_BY_ONE = "def f(x: int) -> int:\n    return x\n", "def f(x: int) -> int:\n    return x + (x == 7)\n"


def fresh(script: str, runs: int) -> list[str]:
    """``script``'s last stdout line in ``runs`` fresh interpreters."""
    lines = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=ENV, timeout=300,
                              check=True)
        lines.append(done.stdout.strip().splitlines()[-1])
    return lines


def json_check_modules(pair: tuple[str, str]) -> tuple[int, int]:
    """(rich's modules, all modules) loaded by an in-process ``check --json`` that finds a difference."""
    script = ("import sys\nfrom divergent.cli import register_commands\n"
              "from divergent.cli.application import run_app\nregister_commands(['check'])\n"
              f"run_app(['check', {pair[0]!r}, {pair[1]!r}, '--budget', '10', '--json'])\n"
              "print(sum(1 for m in sys.modules if m == 'rich' or m.startswith('rich.')), len(sys.modules))\n")
    rich, total = fresh(script, 1)[0].split()
    return int(rich), int(total)


def rich_import_ms(runs: int) -> float:
    """What importing what a report draws with costs (the modules a --json run no longer loads)."""
    script = ("import time\nstart = time.perf_counter()\nimport rich.console, rich.table, rich.panel, rich.text, "
              "rich.padding\nprint((time.perf_counter() - start) * 1000)\n")
    return statistics.median(float(line) for line in fresh(script, runs))


def config_lookup_us(depth: int = 8, calls: int = 200) -> tuple[float, float]:
    """Microseconds to find the project's table from ``depth`` directories down: with a pyproject.toml
    at the top that has the table (it is parsed), and with none on the way."""
    sys.path.insert(0, str(ROOT / "src"))
    from divergent.cli.config import find_config

    figures = []
    with tempfile.TemporaryDirectory() as scratch:
        top = Path(scratch)
        deep = top.joinpath(*(f"d{i}" for i in range(depth)))
        deep.mkdir(parents=True)
        for content in ('[project]\nname = "x"\n\n[tool.divergent]\nbudget = 30\njobs = 4\n', None):
            if content is None:
                (top / "pyproject.toml").unlink()
            else:
                (top / "pyproject.toml").write_text(content)
            start = time.perf_counter()
            for _ in range(calls):
                find_config(deep)
            figures.append((time.perf_counter() - start) / calls * 1e6)
    return figures[0], figures[1]


def output_checks_us(calls: int = 2000) -> float:
    """Microseconds to check the three output files of a check before its search."""
    from divergent.cli.outputs import check_output_paths

    with tempfile.TemporaryDirectory() as scratch:
        paths = [("--json-file", Path(scratch) / "r.json"), ("--html", Path(scratch) / "r.html"),
                 ("--emit-test", Path(scratch) / "test_r.py")]
        start = time.perf_counter()
        for _ in range(calls):
            check_output_paths(*paths)
        return (time.perf_counter() - start) / calls * 1e6


def command_ms(arguments: list[str], runs: int) -> tuple[float, int]:
    """Median wall milliseconds of ``divergent ARGUMENTS`` as a program, and its exit code."""
    times, code = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "divergent", *arguments], capture_output=True, text=True,
                              env={**ENV, "COLUMNS": "80"}, timeout=300)
        times.append((time.perf_counter() - start) * 1000)
        code = done.returncode
    return statistics.median(times), code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as scratch:
        a, b = Path(scratch) / "a.py", Path(scratch) / "b.py"
        a.write_text(SAME)
        b.write_text(OFF_BY_ONE)
        rich, total = json_check_modules((str(a), str(b)))
        print(f"check --json (a difference found): {rich} of rich's modules among {total} loaded")
        print(f"importing what a report draws with (rich): {rich_import_ms(runs):.1f} ms (median of {runs})")
        with_table, without = config_lookup_us()
        print(f"finding [tool.divergent] 8 directories up: {with_table:.0f} us with the table (parsed), "
              f"{without:.0f} us with none on the way")
        print(f"checking 3 output files before the search: {output_checks_us():.0f} us")
        error_ms, code = command_ms(["check", str(a), str(b), "--json", "--budget", "abc"], runs)
        print(f"`check --json --budget abc` as a program: {error_ms:.0f} ms, exit {code} (median of {runs})")
        help_ms, code = command_ms(["check", "--help"], runs)
        print(f"`check --help` at 80 columns as a program: {help_ms:.0f} ms, exit {code} (median of {runs})")


if __name__ == "__main__":
    main()
