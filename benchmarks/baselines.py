"""External baselines on the engine power suite: CrossHair's diffbehavior and Hypothesis' ghostwriter.

For every pair (``pairs/*``) and tool, the tool runs in its own subprocess with the pair staged as
``pair_a.py``/``pair_b.py`` in a fresh temporary directory, is killed when it has used
``budget + grace`` CPU seconds (CPU rather than wall time, so that other work on the machine does
not cut a tool short), and one JSON line is written to ``results/baselines.jsonl``::

    {"pair", "tool", "equivalent", "category", "found", "seconds", "cpu_seconds", "detail",
     "reported", "confirmed", "false_claim", "timed_out", "input"}

* ``reported``: the tool claimed a difference (CrossHair printed ``Given: (...)``, the ghostwritten
  test failed with a ``Falsifying example``/``Failing test case``);
* ``confirmed``: running both sides on the reported input in a child process (``compare_call.py``,
  divergent's default notion of "different") shows a difference; ``None`` if nothing was reported or
  the input could not be read back;
* ``found``: an inequivalent pair, reported and not refuted by that check;
* ``false_claim``: an equivalent pair on which the tool reported a difference;
* ``seconds``: wall time of the whole tool run (ghostwriting plus pytest for Hypothesis), which is
  the time to counterexample when found. CrossHair prints its findings only when its
  ``--per_condition_timeout`` is used up or its paths are exhausted, so its time to counterexample
  is its run time. ``cpu_seconds`` is the CPU time of the same run (what the limits count).

Tools:

* ``crosshair``: ``crosshair diffbehavior pair_a.f pair_b.f --per_condition_timeout=BUDGET
  --exception_equivalence=SAME_TYPE`` (exceptions of the same type are the same behaviour, as in
  divergent's default policy; CrossHair's own default also compares the messages);
* ``hypothesis``: ``hypothesis write --equivalent pair_a.f pair_b.f`` then pytest on the written
  test with ``--hypothesis-seed=0`` and a profile of max_examples=10000, deadline=None, no example
  database (strategies come from ``st.from_type`` on the annotations; any exception fails the test);
* ``hypothesis-errors``: the same with ``--errors-equivalent`` (both sides raising the same exception
  type is accepted).

Usage::

    python benchmarks/baselines.py [--budget 20] [--grace 20] [--pairs a,b] [--tools crosshair,hypothesis]
                                   [--jobs 1] [--output results/baselines.jsonl]
    python benchmarks/baselines.py --summary-only      # reprint the table from the JSON lines
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from threading import Lock
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from suite import BENCHMARKS_DIR, Pair, compare_on_call, load_pairs, parse_pair_names, stage_pair

DEFAULT_OUTPUT = BENCHMARKS_DIR / "results" / "baselines.jsonl"
VENV_BIN = Path(sys.executable).parent
HYPOTHESIS_MAX_EXAMPLES = 10_000
CONFTEST = f"""\
from hypothesis import HealthCheck, settings

settings.register_profile(
    "engine-power-baseline",
    max_examples={HYPOTHESIS_MAX_EXAMPLES},
    deadline=None,
    database=None,
    print_blob=False,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile("engine-power-baseline")
"""


@dataclass
class ToolRun:
    """What one tool said about one pair, before the reported inputs are checked."""

    reported: bool
    seconds: float
    cpu_seconds: float
    timed_out: bool
    detail: str
    inputs: list[str]  # reported inputs as call expressions of the pair's function


@dataclass
class BaselineRecord:
    pair: str
    tool: str
    equivalent: bool
    category: str
    found: bool
    seconds: float
    cpu_seconds: float
    detail: str
    reported: bool
    confirmed: bool | None
    false_claim: bool
    timed_out: bool
    input: str | None


# -- subprocesses ---------------------------------------------------------------------------------


@dataclass
class ProcessResult:
    returncode: int | None  # None: killed at a hard limit
    stdout: str
    stderr: str
    seconds: float  # wall clock
    cpu_seconds: float  # user + system time of the process and the children it waited for


def run_with_hard_limits(command: list[str], cwd: Path, cpu_limit: float) -> ProcessResult:
    """Run ``command`` in its own process group, limited to ``cpu_limit`` CPU seconds.

    CPU time, not wall time, is what is limited (RLIMIT_CPU: the kernel kills the process), so a
    busy machine does not cut a tool short; the wall-clock limit is only a safety net.
    """
    environment = dict(os.environ, PYTHONPATH=str(cwd), NO_COLOR="1", TERM="dumb", PYTHONHASHSEED="0")
    wall_limit = 4 * cpu_limit + 30
    with tempfile.TemporaryFile("w+") as stdout_file, tempfile.TemporaryFile("w+") as stderr_file:
        started = time.perf_counter()
        process = subprocess.Popen(
            command, cwd=cwd, env=environment, stdout=stdout_file, stderr=stderr_file, start_new_session=True
        )
        seconds_limit = max(math.ceil(cpu_limit), 1)
        try:
            resource.prlimit(process.pid, resource.RLIMIT_CPU, (seconds_limit, seconds_limit + 1))
        except (ProcessLookupError, PermissionError):
            pass  # already finished
        returncode: int | None = None
        usage = None
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                returncode = os.waitstatus_to_exitcode(status)
                break
            if time.perf_counter() - started > wall_limit:
                os.killpg(process.pid, signal.SIGKILL)
                _, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.02)
        seconds = time.perf_counter() - started
        process.returncode = returncode if returncode is not None else -9  # already reaped by wait4
        try:
            os.killpg(process.pid, signal.SIGKILL)  # stray grandchildren
        except ProcessLookupError:
            pass
        if returncode is not None and returncode < 0:
            returncode = None  # killed by a signal: SIGXCPU (the CPU limit) or SIGKILL
        stdout_file.seek(0)
        stderr_file.seek(0)
        stdout, stderr = stdout_file.read(), stderr_file.read()
    cpu_seconds = usage.ru_utime + usage.ru_stime if usage is not None else float("nan")
    return ProcessResult(returncode, stdout, stderr, seconds, cpu_seconds)


def _tail(text: str, limit: int = 300) -> str:
    text = " ".join(text.strip().split())
    return text if len(text) <= limit else "..." + text[-limit:]


def _tool_command(name: str) -> list[str]:
    installed = VENV_BIN / name
    return [str(installed)] if installed.exists() else [sys.executable, "-m", name]


# -- CrossHair ------------------------------------------------------------------------------------

CROSSHAIR_GIVEN = re.compile(r"^Given: (\(.*\)),$")


def parse_crosshair_inputs(stdout: str, function: str) -> list[str]:
    """``Given: (x=1, y='a'),`` lines -> ``["f(x=1, y='a')"]``."""
    inputs = []
    for line in stdout.splitlines():
        match = CROSSHAIR_GIVEN.match(line.strip())
        if match:
            inputs.append(function + match.group(1))
    return inputs


def run_crosshair(pair: Pair, staged: Path, budget: float, grace: float) -> ToolRun:
    command = [
        *_tool_command("crosshair"),
        "diffbehavior",
        pair.qualified_a,
        pair.qualified_b,
        f"--per_condition_timeout={budget:g}",
        "--exception_equivalence=SAME_TYPE",
    ]
    result = run_with_hard_limits(command, staged, budget + grace)
    timing = (result.seconds, result.cpu_seconds)
    if result.returncode is None:
        return ToolRun(False, *timing, True, f"killed at the hard limit ({budget + grace:g} CPU s)", [])
    inputs = parse_crosshair_inputs(result.stdout, pair.function)
    if result.returncode == 1 and inputs:
        first_difference = "; ".join(line.strip() for line in result.stdout.splitlines()[:3])
        detail = f"{len(inputs)} difference(s) reported; first: {_tail(first_difference, 400)}"
        return ToolRun(True, *timing, False, detail, inputs)
    if result.returncode == 0:
        return ToolRun(False, *timing, False, _tail(result.stdout), [])
    detail = f"exit {result.returncode}: {_tail(result.stdout + ' ' + result.stderr)}"
    return ToolRun(False, *timing, False, detail, [])


# -- Hypothesis' ghostwriter ----------------------------------------------------------------------

FAILING_EXAMPLE_START = re.compile(r"(?:Falsifying example|Failing test case): (test_\w+)\(")
#: pytest marks error lines with "E   ", Hypothesis' groups of distinct failures with "    | "
OUTPUT_LINE_PREFIX = re.compile(r"^(?:E\s{0,7}|\s*\|\s?)")
MAX_EXAMPLE_LINES = 500
PASSING_EXAMPLES = re.compile(r"(\d+) passing(?: examples?)?,")


def parse_hypothesis_inputs(output: str, function: str) -> list[str]:
    """Each ``Falsifying example: test_x(\\n a=1,\\n)`` block in pytest's output -> ``"f(a=1,)"``."""
    lines = [OUTPUT_LINE_PREFIX.sub("", line) for line in output.splitlines()]
    inputs = []
    for index, line in enumerate(lines):
        match = FAILING_EXAMPLE_START.search(line)
        if not match:
            continue
        call_text = line[match.end(1) :]
        for continuation in lines[index + 1 : index + 1 + MAX_EXAMPLE_LINES]:
            if _is_complete_call(call_text):
                break
            call_text += "\n" + continuation
        call = function + call_text.strip()
        if _is_complete_call(call_text) and call not in inputs:
            inputs.append(call)
    return inputs


def _is_complete_call(text: str) -> bool:
    if not text.rstrip().endswith(")"):
        return False
    try:
        compile("f" + text.strip(), "<example>", "eval")
    except SyntaxError:
        return False
    return True


def make_ghostwriter_runner(writer_flag: str) -> Callable[[Pair, Path, float, float], ToolRun]:
    def run_ghostwriter(pair: Pair, staged: Path, budget: float, grace: float) -> ToolRun:
        started = time.perf_counter()
        write = run_with_hard_limits(
            [*_tool_command("hypothesis"), "write", writer_flag, pair.qualified_a, pair.qualified_b],
            staged,
            budget + grace,
        )
        if write.returncode != 0 or "def test_" not in write.stdout:
            detail = f"ghostwriter failed (exit {write.returncode}): {_tail(write.stderr or write.stdout)}"
            return ToolRun(False, write.seconds, write.cpu_seconds, write.returncode is None, detail, [])
        (staged / "test_ghostwritten.py").write_text(write.stdout, encoding="utf-8")
        (staged / "conftest.py").write_text(CONFTEST, encoding="utf-8")
        pytest_command = [
            sys.executable, "-m", "pytest", "test_ghostwritten.py", "-q", "-p", "no:cacheprovider",
            "--hypothesis-seed=0", "--hypothesis-show-statistics", "-o", "addopts=", "--rootdir", str(staged),
        ]  # fmt: skip
        result = run_with_hard_limits(pytest_command, staged, max(budget + grace - write.cpu_seconds, 1.0))
        timing = (time.perf_counter() - started, write.cpu_seconds + result.cpu_seconds)
        if result.returncode is None:
            return ToolRun(False, *timing, True, f"killed at the hard limit ({budget + grace:g} CPU s)", [])
        output = result.stdout + "\n" + result.stderr
        if result.returncode == 0:
            passing = PASSING_EXAMPLES.search(output)
            count = passing.group(1) if passing else "?"
            return ToolRun(False, *timing, False, f"test passed ({count} passing examples)", [])
        inputs = parse_hypothesis_inputs(output, pair.function)
        if result.returncode == 1 and inputs:
            error = re.search(r"^E\s+(\w+(?:Error|Exception|Exit)\b.*)$", output, re.MULTILINE)
            reason = _tail(error.group(1), 160) if error else "assertion failed"
            return ToolRun(True, *timing, False, f"falsified: {_tail(inputs[0], 200)} ({reason})", inputs)
        return ToolRun(False, *timing, False, f"pytest exit {result.returncode}: {_tail(output)}", [])

    return run_ghostwriter


TOOLS: dict[str, Callable[[Pair, Path, float, float], ToolRun]] = {
    "crosshair": run_crosshair,
    "hypothesis": make_ghostwriter_runner("--equivalent"),
    "hypothesis-errors": make_ghostwriter_runner("--errors-equivalent"),
}


# -- one measurement ------------------------------------------------------------------------------


def measure(pair: Pair, tool: str, budget: float, grace: float) -> BaselineRecord:
    with tempfile.TemporaryDirectory(prefix=f"divergent-baseline-{tool}-") as staged_dir:
        staged = Path(staged_dir)
        stage_pair(pair, staged)
        run = TOOLS[tool](pair, staged, budget, grace)
    confirmed: bool | None = None
    checked_input: str | None = run.inputs[0] if run.inputs else None
    detail = run.detail
    for reported_input in run.inputs[:5]:
        verdict = compare_on_call(pair, reported_input)
        if verdict.get("differs") is True:
            confirmed, checked_input = True, reported_input
            break
        if verdict.get("differs") is False and confirmed is None:
            confirmed = False
            detail += f" | not a difference when re-run: a {verdict.get('a')} / b {verdict.get('b')}"
        elif verdict.get("differs") is None:
            detail += f" | reported input not checked: {verdict.get('error')}"
    found = run.reported and not pair.equivalent and confirmed is not False
    return BaselineRecord(
        pair=pair.name,
        tool=tool,
        equivalent=pair.equivalent,
        category=pair.category,
        found=found,
        seconds=round(run.seconds, 2),
        cpu_seconds=round(run.cpu_seconds, 2),
        detail=detail,
        reported=run.reported,
        confirmed=confirmed,
        false_claim=run.reported and pair.equivalent,
        timed_out=run.timed_out,
        input=checked_input,
    )


# -- results file and summary ----------------------------------------------------------------------


def read_records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def summarize(records: list[dict[str, Any]], tools: list[str]) -> str:
    by_key = {(record["pair"], record["tool"]): record for record in records}
    pairs = sorted({record["pair"] for record in records})
    equivalence = {record["pair"]: record["equivalent"] for record in records}
    lines = ["| pair | truth | " + " | ".join(tools) + " |", "|---|---|" + "---|" * len(tools)]
    for name in pairs:
        cells = []
        for tool in tools:
            record = by_key.get((name, tool))
            if record is None:
                cells.append("-")
                continue
            timing = f"{record['seconds']:.1f}s ({record.get('cpu_seconds', math.nan):.1f} cpu)"
            if record["equivalent"]:
                verdict = "FALSE CLAIM" if record["false_claim"] else "ok"
            elif record["found"]:
                verdict = "found"
            else:
                verdict = "missed (spurious report)" if record["reported"] else "missed"
            cells.append(f"{verdict} {timing}")
        truth = "equivalent" if equivalence[name] else "differs"
        lines.append(f"| {name} | {truth} | " + " | ".join(cells) + " |")

    inequivalent = [name for name in pairs if not equivalence[name]]
    equivalent = [name for name in pairs if equivalence[name]]
    found_by_any = {
        name for name in inequivalent if any(by_key.get((name, tool), {}).get("found") for tool in tools)
    }
    lines += [
        "",
        "| tool | found | median s to counterexample (wall / CPU) | false claims | spurious reports |",
        "|---|---|---|---|---|",
    ]
    for tool in tools:
        tool_records = [by_key[(name, tool)] for name in pairs if (name, tool) in by_key]
        found_records = [r for r in tool_records if not r["equivalent"] and r["found"]]
        found_times = [r["seconds"] for r in found_records]
        found_cpu_times = [r.get("cpu_seconds", math.nan) for r in found_records]
        false_claims = [r["pair"] for r in tool_records if r["false_claim"]]
        spurious = [
            r["pair"] for r in tool_records if not r["equivalent"] and r["reported"] and not r["found"]
        ]
        median = (
            f"{statistics.median(found_times):.2f} / {statistics.median(found_cpu_times):.2f}"
            if found_times
            else "-"
        )
        ran_inequivalent = sum(not r["equivalent"] for r in tool_records)
        lines.append(
            f"| {tool} | {len(found_times)}/{ran_inequivalent} | {median} | "
            f"{len(false_claims)}/{sum(r['equivalent'] for r in tool_records)}"
            f"{' (' + ', '.join(false_claims) + ')' if false_claims else ''} | {len(spurious)} |"
        )
    missed_by_all = [name for name in inequivalent if name not in found_by_any]
    lines += [
        "",
        f"found by at least one tool: {len(found_by_any)}/{len(inequivalent)} inequivalent pairs "
        f"({len(equivalent)} equivalent pairs)",
        f"missed by every tool: {', '.join(missed_by_all) or 'none'}",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="Run CrossHair and Hypothesis' ghostwriter on the suite.")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per pair and tool (default 20)")
    parser.add_argument(
        "--grace",
        type=float,
        default=20.0,
        help="extra CPU seconds before the hard kill (start-up; CrossHair can overrun its own limit by several seconds)",
    )
    parser.add_argument("--pairs", help="comma-separated pair names (default: all)")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"comma-separated, from {', '.join(TOOLS)}")
    parser.add_argument(
        "--jobs", type=int, default=1, help="parallel measurements (default 1: times stay honest)"
    )
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--summary-only", action="store_true", help="print the table from --output and stop")
    options = parser.parse_args()

    tools = [tool.strip() for tool in options.tools.split(",") if tool.strip()]
    unknown = [tool for tool in tools if tool not in TOOLS]
    if unknown:
        parser.error(f"unknown tool(s): {', '.join(unknown)}")
    if options.summary_only:
        print(summarize(read_records(options.output), tools))
        return 0

    pairs = load_pairs(parse_pair_names(options.pairs))
    tasks = [(pair, tool) for pair in pairs for tool in tools]
    rerun = {(pair.name, tool) for pair, tool in tasks}
    kept = [
        record for record in read_records(options.output) if (record["pair"], record["tool"]) not in rerun
    ]
    options.output.parent.mkdir(parents=True, exist_ok=True)
    with options.output.open("w", encoding="utf-8") as stream:
        stream.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in kept)

    write_lock = Lock()
    done = 0

    def run_task(task: tuple[Pair, str]) -> None:
        nonlocal done
        pair, tool = task
        record = measure(pair, tool, options.budget, options.grace)
        with write_lock, options.output.open("a", encoding="utf-8") as stream:
            stream.write(json.dumps(asdict(record), ensure_ascii=False) + "\n")
            done += 1
            outcome = "FALSE CLAIM" if record.false_claim else "found" if record.found else "no difference"
            print(f"[{done}/{len(tasks)}] {pair.name} {tool}: {outcome} in {record.seconds:.1f}s", flush=True)

    with ThreadPoolExecutor(max_workers=max(options.jobs, 1)) as executor:
        list(executor.map(run_task, tasks))

    print()
    print(summarize(read_records(options.output), tools))
    return 0


if __name__ == "__main__":
    sys.exit(main())
