"""divergent beside CrossHair, Hypothesis and a plain random loop, on the same pairs, same machine, same run.

For every pair of ``pairs/``, ``heldout/`` and ``realbugs/`` (see ``suite.py``) and every tool, the
tool runs as a command of its own (end to end: interpreter start, imports, search, report), the pair staged as
``pair_a.py``/``pair_b.py`` in a fresh directory, killed at ``budget + grace`` wall seconds:

* ``divergent``: ``divergent check pair_a.py pair_b.py --function F --budget B --json`` (the
  default engines);
* ``crosshair``: ``crosshair diffbehavior pair_a.F pair_b.F --per_condition_timeout=B
  --exception_equivalence=SAME_TYPE`` (it prints its differences when its time is spent or its
  paths are exhausted);
* ``hypothesis``: a hand-written-style property test, arguments from ``st.from_type`` of the
  annotations (``property_runner.py``);
* ``random``: a plain loop of random arguments of the annotated types (``property_runner.py``).

``realbugs/`` holds code copied verbatim from real projects, mostly unannotated. Every tool gets the
same type information there: the types of the witness's arguments (``arg_types`` in ``meta.json``),
never the witness's values. The random loop and Hypothesis generate exactly those parameters with
those types (the others keep their defaults); CrossHair checks ``typed_pair_a.F`` against
``typed_pair_b.F``, wrappers that only forward their arguments under a signature annotated with those
types; divergent, which cannot generate for an unannotated parameter without a seed, gets
``--seeds`` with one plain call of those types (``f(value=7)``, ``"abc"``, ``2.5``, one-element
containers; if that call itself shows the bug, the next plain values) when a parameter has no
annotation, and the code's own annotations otherwise. ``--no-type-seed`` runs divergent as a user's
plain ``divergent check a.py b.py -f NAME`` does, without that seed (rows under the tool
``divergent-noseed``): where no parameter is annotated it stops with "cannot generate inputs".
The ``realbugs/`` code is not committed: ``python benchmarks/suite.py materialize`` brings it in first.

A reported difference counts when re-running both sides on the reported input (``compare_call.py``)
shows one; on an equivalent pair, a reported difference is a false claim (and a proof on a pair
that differs would be a false proof). The seconds are the tool's whole run, which is the time to
counterexample when it found one.

Then, for divergent alone: judged inputs per second in a 5-second ``check`` of ``x + 1`` against
``1 + x`` with the engines that need no solver (seeds, mutation, hypothesis), the end-to-end latency
of ``abs(x)`` against ``x`` (median of ``--latency-runs``), and the budget overrun (wall seconds past
``--budget``) on the runs that used their whole budget.

Results: ``results/side_by_side.jsonl`` (one line per pair and tool; ``realbugs/`` rows in
``results/side_by_side_realbugs.jsonl``; ``--summary-only`` reprints the tables; ``--suite`` also
selects the rows summarized), figures printed as markdown tables.

    python benchmarks/side_by_side.py [--budget 10] [--grace 5] [--tools divergent,crosshair,hypothesis,random]
                                      [--pairs a,b] [--suite pairs|heldout|realbugs|all] [--latency-runs 10]
                                      [--no-type-seed]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baselines import parse_crosshair_inputs
from compare_call import parse_type
from suite import BENCHMARKS_DIR, SUITES, Pair, compare_on_call, load_pairs, parse_pair_names, stage_pair

RESULTS = BENCHMARKS_DIR / "results" / "side_by_side.jsonl"
#: rows of a suite kept in a file of their own (the others share ``RESULTS``)
SUITE_RESULTS = {"realbugs": RESULTS.with_name("side_by_side_realbugs.jsonl")}


def results_path(suite: str) -> Path:
    return SUITE_RESULTS.get(suite, RESULTS)
ROOT = BENCHMARKS_DIR.parent
PYTHON = sys.executable
TOOLS = ("divergent", "crosshair", "hypothesis", "random")
#: divergent without the type seed (``--no-type-seed``), recorded as a tool of its own
NO_SEED_TOOL = "divergent-noseed"


def run_command(command: list[str], cwd: Path, limit: float, env: dict[str, str] | None = None) -> tuple[int | None, str, str, float]:
    """Run ``command`` in its own process group; (exit code or None when killed, stdout, stderr, wall seconds)."""
    environment = dict(os.environ, PYTHONPATH=f"{ROOT / 'src'}:{cwd}", PYTHONHASHSEED="0", NO_COLOR="1", **(env or {}))
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, cwd=cwd, env=environment, stdout=out, stderr=err, start_new_session=True)
        # A blocking wait, with a timer to kill at the limit: ``Popen.wait(timeout=...)`` polls with
        # sleeps of up to 50 ms, which rounded every tool's time up to a step of 50 ms.
        killed = threading.Event()

        def kill_at_limit() -> None:
            killed.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)

        timer = threading.Timer(limit, kill_at_limit)
        timer.start()
        try:
            status = process.wait()
        finally:
            timer.cancel()
        seconds = time.perf_counter() - started
        code: int | None = None if killed.is_set() else status
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever the tool left behind
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read(), seconds


# -- unannotated code (realbugs/): every tool gets the types of the witness's arguments, nothing more --


def unannotated_parameters(pair: Pair) -> list[str]:
    """The parameters of ``arg_types`` that either side leaves unannotated (read from the source)."""
    missing: set[str] = set()
    for side in ("a.py", "b.py"):
        tree = ast.parse((pair.directory / side).read_text(encoding="utf-8"))
        function = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == pair.function][-1]
        arguments = function.args
        annotated = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs] if a.annotation}
        missing |= {name for name in pair.arg_types or {} if name not in annotated}
    return sorted(missing)


#: plain values of each type for the type seed, tried in order (never the empty or zero value, which
#: are edge cases of their own); an alternative is used only when the first reveals the bug itself
PLAIN_VALUES: dict[Any, list[Any]] = {
    int: [7, 42, 3], float: [2.5, 7.25, 0.75], str: ["abc", "hello", "x y"], bool: [False, True, False],
    bytes: [b"abc", b"hello", b"x y"], None: [None] * 3, type(None): [None] * 3,
}


def plain_value(annotation: Any, variant: int) -> Any:
    """A plain value of a type: ``"abc"``, ``7``, one plain element for a container."""
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list:
        return [plain_value(arguments[0], variant)]
    if origin is dict:
        return {plain_value(arguments[0], variant): plain_value(arguments[1], variant)}
    if origin is tuple:
        return tuple(plain_value(argument, variant) for argument in arguments)
    if origin in (typing.Union, types.UnionType):
        return plain_value(arguments[0], variant)
    return PLAIN_VALUES[annotation][variant]


def type_seed(pair: Pair) -> str | None:
    """For a function with unannotated parameters (which divergent cannot generate from without a
    seed), one call with a plain value of each witness argument's type: it tells the types and
    nothing of the witness. A seed that itself shows a difference would hand divergent the bug, so
    the next plain values are tried (each check runs the sides in a child process)."""
    if not pair.arg_types or not unannotated_parameters(pair):
        return None
    annotations = {name: parse_type(text) for name, text in pair.arg_types.items()}
    call = ""
    for variant in range(3):
        arguments = ", ".join(f"{name}={plain_value(annotation, variant)!r}" for name, annotation in annotations.items())
        call = f"{pair.function}({arguments})"
        if compare_on_call(pair, call).get("differs") is not True:
            return call
    return call


def stage_typed_wrappers(pair: Pair, staged: Path) -> tuple[str, str]:
    """``typed_pair_a.F``/``typed_pair_b.F``: the sides behind a signature annotated with the witness's
    argument types, for CrossHair (which needs annotations); the wrapper only forwards its arguments."""
    assert pair.arg_types
    parameters = ", ".join(f"{name}: {text}" for name, text in pair.arg_types.items())
    forwarded = ", ".join(f"{name}={name}" for name in pair.arg_types)
    names = []
    for side in ("pair_a", "pair_b"):
        (staged / f"typed_{side}.py").write_text(
            f"from {side} import {pair.function} as _implementation\n\n\n"
            f"def {pair.function}({parameters}):\n    return _implementation({forwarded})\n"
        )
        names.append(f"typed_{side}.{pair.function}")
    return names[0], names[1]


def tool_divergent(pair: Pair, staged: Path, budget: float, grace: float, *, seeded: bool = True) -> dict[str, Any]:
    command = [PYTHON, "-m", "divergent", "check", "pair_a.py", "pair_b.py", "--function", pair.function,
               "--budget", f"{budget:g}", "--json"]
    seed = type_seed(pair) if seeded else None
    if seed is not None:
        (staged / "type_seed.txt").write_text(seed + "\n")
        command += ["--seeds", "type_seed.txt"]
    code, out, err, seconds = run_command(command, staged, budget + grace)
    record: dict[str, Any] = {"seconds": round(seconds, 3), "killed": code is None,
                              **({"type_seed": seed} if seed is not None else {})}
    try:
        report = json.loads(out)
    except json.JSONDecodeError:
        return {**record, "reported": False, "detail": f"exit {code}: {err.strip()[-300:]}"}
    counterexample = report.get("counterexample")
    return {
        **record,
        "reported": report["verdict"] == "divergent",
        "proven": report["verdict"] == "proven-equivalent",
        "input": counterexample["call"] if counterexample else None,
        "engine": report.get("engine"),
        "search_seconds": report.get("seconds"),
        "inputs": report.get("inputs"),
        "detail": "; ".join(report.get("notes", []))[:300],
    }


def tool_crosshair(pair: Pair, staged: Path, budget: float, grace: float) -> dict[str, Any]:
    binary = Path(PYTHON).parent / "crosshair"
    first, second = stage_typed_wrappers(pair, staged) if pair.arg_types else (pair.qualified_a, pair.qualified_b)
    command = [str(binary) if binary.exists() else "crosshair", "diffbehavior", first, second,
               f"--per_condition_timeout={budget:g}", "--exception_equivalence=SAME_TYPE"]
    code, out, err, seconds = run_command(command, staged, budget + grace)
    inputs = parse_crosshair_inputs(out, pair.function)
    return {
        "seconds": round(seconds, 3), "killed": code is None, "reported": code == 1 and bool(inputs),
        # CrossHair's own word when it ran out of paths ("functions are likely the same")
        "proven": code == 0 and "All paths exhausted" in out,
        "input": inputs[0] if inputs else None, "detail": (out.strip().splitlines() or [err.strip()[-200:]])[-1][:200],
    }


def tool_property(mode: str) -> Callable[[Pair, Path, float, float], dict[str, Any]]:
    def run(pair: Pair, staged: Path, budget: float, grace: float) -> dict[str, Any]:
        command = [PYTHON, str(BENCHMARKS_DIR / "property_runner.py"), str(staged), pair.function, mode,
                   *([json.dumps(pair.arg_types)] if pair.arg_types else [])]
        code, out, err, seconds = run_command(command, staged, budget)
        record: dict[str, Any] = {"seconds": round(seconds, 3), "killed": code is None}
        lines = out.strip().splitlines()
        if code is None or not lines:
            return {**record, "reported": False, "detail": "budget spent" if code is None else err.strip()[-200:]}
        answer = json.loads(lines[-1])
        return {**record, "reported": bool(answer["found"]), "input": answer.get("call"),
                "detail": f"{answer.get('examples')} examples"}

    return run


RUNNERS: dict[str, Callable[[Pair, Path, float, float], dict[str, Any]]] = {
    "divergent": tool_divergent,
    # what a user's plain ``divergent check a.py b.py -f NAME`` does: no type seed for unannotated code
    NO_SEED_TOOL: functools.partial(tool_divergent, seeded=False),
    "crosshair": tool_crosshair,
    "hypothesis": tool_property("hypothesis"),
    "random": tool_property("random"),
}


def measure(pair: Pair, suite: str, tool: str, budget: float, grace: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"divergent-sbs-{tool}-") as directory:
        staged = Path(directory)
        stage_pair(pair, staged)
        record = RUNNERS[tool](pair, staged, budget, grace)
    confirmed = None
    if record.get("reported") and record.get("input"):
        verdict = compare_on_call(pair, record["input"])
        confirmed = verdict.get("differs")
        if confirmed is False:
            record["detail"] = f"{record.get('detail', '')} | re-run shows no difference: {verdict.get('a')} / {verdict.get('b')}"
    reported = bool(record.get("reported"))
    return {
        "pair": pair.name, "suite": suite, "tool": tool, "equivalent": pair.equivalent, "category": pair.category,
        **record,
        "confirmed": confirmed,
        "found": reported and not pair.equivalent and confirmed is not False,
        "false_claim": reported and pair.equivalent,
        "false_proof": bool(record.get("proven")) and not pair.equivalent,
        "budget": budget,
    }


# -- divergent's own figures ---------------------------------------------------------------------

TRIVIAL = {"a.py": "def f(x: int) -> int:\n    return x + 1\n", "b.py": "def f(x: int) -> int:\n    return 1 + x\n"}
ABS = {"a.py": "def f(x: int) -> int:\n    return abs(x)\n", "b.py": "def f(x: int) -> int:\n    return x\n"}


def divergent_figures(latency_runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="divergent-sbs-own-") as directory:
        where = Path(directory)
        for name, source in {**{f"inc_{k}": v for k, v in TRIVIAL.items()}, **{f"abs_{k}": v for k, v in ABS.items()}}.items():
            (where / name).write_text(source)
        throughput = []
        for _ in range(3):
            _, out, _, seconds = run_command(
                [PYTHON, "-m", "divergent", "check", "inc_a.py", "inc_b.py", "--budget", "5", "--json",
                 "--engines", "seeds,mutation,hypothesis"], where, 30)
            report = json.loads(out)
            throughput.append({"inputs": report["inputs"], "search_seconds": report["seconds"], "wall": round(seconds, 3),
                               "inputs_per_second": round(report["inputs"] / report["seconds"]),
                               "engines": {e["name"]: e["inputs"] for e in report["engines"]}})
        latencies = []
        for _ in range(latency_runs):
            _, out, _, seconds = run_command(
                [PYTHON, "-m", "divergent", "check", "abs_a.py", "abs_b.py", "--json"], where, 60)
            report = json.loads(out)
            latencies.append({"wall": round(seconds, 3), "search_seconds": report["seconds"],
                              "call": report["counterexample"]["call"] if report["counterexample"] else None})
    return {"throughput": throughput, "latency": latencies}


# -- summary --------------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def summarize(records: list[dict[str, Any]], tools: list[str], own: dict[str, Any] | None) -> str:
    by_key = {(r["pair"], r["tool"]): r for r in records}
    pairs = sorted({(r["suite"], r["pair"]) for r in records})
    equivalent = {r["pair"]: r["equivalent"] for r in records}
    lines = ["| suite | pair | truth | " + " | ".join(tools) + " |", "|---|---|---|" + "---|" * len(tools)]
    for suite, name in pairs:
        cells = []
        for tool in tools:
            r = by_key.get((name, tool))
            if r is None:
                cells.append("-")
            elif r["equivalent"]:
                cells.append("FALSE CLAIM" if r["false_claim"] else ("proven" if r.get("proven") else "ok") + f" {r['seconds']:.1f}s")
            elif r["found"]:
                cells.append(f"{r['seconds']:.2f}s")
            else:
                cells.append("FALSE PROOF" if r.get("false_proof") else "missed")
        lines.append(f"| {suite} | {name} | {'equivalent' if equivalent[name] else 'differs'} | " + " | ".join(cells) + " |")
    differing = [name for _, name in pairs if not equivalent[name]]
    equivalents = [name for _, name in pairs if equivalent[name]]
    lines += ["", "| tool | found | median s | p90 s | false claims | proofs | false proofs |", "|---|---|---|---|---|---|---|"]
    for tool in tools:
        found = [by_key[(n, tool)] for n in differing if by_key.get((n, tool), {}).get("found")]
        times = [r["seconds"] for r in found]
        ran = sum((n, tool) in by_key for n in differing)
        false = [n for n in equivalents if by_key.get((n, tool), {}).get("false_claim")]
        proofs = sum(bool(by_key.get((n, tool), {}).get("proven")) for n in equivalents)
        false_proofs = sum(bool(by_key.get((n, tool), {}).get("false_proof")) for n in differing)
        median = f"{statistics.median(times):.2f}" if times else "-"
        p90 = f"{percentile(times, 0.9):.2f}" if times else "-"
        ran_equivalent = sum((n, tool) in by_key for n in equivalents)
        lines.append(f"| {tool} | {len(found)}/{ran} | {median} | {p90} | {len(false)}/{ran_equivalent}"
                     f"{' (' + ', '.join(false) + ')' if false else ''} | {proofs} | {false_proofs} |")
    others = [t for t in tools if t != "divergent"]
    if "divergent" in tools and others:
        union = {n for n in differing for t in others if by_key.get((n, t), {}).get("found")}
        ours = {n for n in differing if by_key.get((n, "divergent"), {}).get("found")}
        slower = []
        ratios = []
        for n in sorted(ours):
            fastest = [by_key[(n, t)]["seconds"] for t in others if by_key.get((n, t), {}).get("found")]
            if fastest:
                ratios.append(by_key[(n, "divergent")]["seconds"] / min(fastest))
            if fastest and by_key[(n, "divergent")]["seconds"] > min(fastest):
                slower.append(f"{n} ({by_key[(n, 'divergent')]['seconds']:.2f}s vs {min(fastest):.2f}s)")
        lines += [
            "",
            f"found by another tool: {len(union)}; by divergent: {len(ours)}; "
            f"found by another tool but missed by divergent: {sorted(union - ours) or 'none'}",
            f"pairs where divergent was not the fastest to a counterexample ({len(slower)} of {len(ours & union)} "
            f"found by both): {', '.join(slower) or 'none'}",
        ]
        if ratios:
            lines.append(f"per pair found by both, divergent's seconds over the fastest other tool's: median "
                         f"{statistics.median(ratios):.2f}x, {sum(r <= 1.5 for r in ratios)} of {len(ratios)} within 1.5x")
        overruns = [r["seconds"] - r["budget"] for r in records if r["tool"] == "divergent" and not r.get("found")
                    and not r.get("proven") and not r.get("false_claim")]
        if overruns:
            lines.append(f"divergent budget overrun on runs that used the whole budget ({len(overruns)}): median "
                         f"{statistics.median(overruns):+.2f} s, max {max(overruns):+.2f} s (wall, start-up and report included)")
    if own:
        rates = [t["inputs_per_second"] for t in own["throughput"]]
        walls = [t["wall"] for t in own["latency"]]
        lines += [
            "",
            f"throughput (x + 1 vs 1 + x, seeds,mutation,hypothesis, 5 s): {statistics.median(rates):,.0f} judged inputs/s "
            f"(runs: {', '.join(f'{r:,}' for r in rates)})",
            f"latency (abs(x) vs x, CLI end to end, {len(walls)} runs): median {statistics.median(walls):.3f} s, "
            f"p90 {percentile(walls, 0.9):.3f} s, min {min(walls):.3f} s",
        ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=10.0)
    parser.add_argument("--grace", type=float, default=10.0,
                        help="wall seconds past the budget before divergent or CrossHair is killed (CrossHair "
                             "overruns its own limit)")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--pairs", default=None)
    parser.add_argument("--suite", choices=[*SUITES, "all"], default="all")
    parser.add_argument("--latency-runs", type=int, default=10)
    parser.add_argument("--fresh", action="store_true", help="forget earlier results of the selected suites and tools")
    parser.add_argument("--summary-only", action="store_true")
    parser.add_argument("--no-type-seed", action="store_true",
                        help=f"run divergent without the type seed for unannotated parameters (recorded as {NO_SEED_TOOL})")
    options = parser.parse_args()
    tools = [t for t in options.tools.split(",") if t]
    if options.no_type_seed:
        tools = [NO_SEED_TOOL if t == "divergent" else t for t in tools]
    unknown = [t for t in tools if t not in RUNNERS]
    if unknown:
        parser.error(f"unknown tool(s): {', '.join(unknown)} (known: {', '.join(RUNNERS)})")
    RESULTS.parent.mkdir(exist_ok=True)
    own_path = RESULTS.with_name("side_by_side_divergent.json")
    paths = [RESULTS, *SUITE_RESULTS.values()]
    selected = tuple(SUITES) if options.suite == "all" else (options.suite,)
    records = [json.loads(line) for path in paths if path.exists() for line in path.read_text().splitlines()]
    if options.fresh:
        # forget the rows of the selected suites and tools only (other suites' and tools' rows stay)
        chosen = parse_pair_names(options.pairs)
        forget = lambda r: (r["suite"] in selected and r["tool"] in tools  # noqa: E731
                            and (chosen is None or r["pair"] in chosen))
        for path in paths:
            kept = [r for r in records if results_path(r["suite"]) == path and not forget(r)]
            if path.exists():
                path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept))
        records = [r for r in records if not forget(r)]
    if not options.summary_only:
        done = {(r["pair"], r["tool"]) for r in records}
        suites = tuple(SUITES) if options.suite == "all" else (options.suite,)
        names = parse_pair_names(options.pairs)
        for suite in suites:
            for pair in load_pairs(None, (suite,)):
                if names is not None and pair.name not in names:
                    continue
                for tool in tools:
                    if (pair.name, tool) in done:
                        continue
                    record = measure(pair, suite, tool, options.budget, options.grace)
                    records.append(record)
                    with results_path(suite).open("a") as stream:
                        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
                    mark = "FALSE CLAIM" if record["false_claim"] else "found" if record["found"] else (
                        "proven" if record.get("proven") else "-")
                    print(f"{suite:8} {pair.name:32} {tool:10} {mark:11} {record['seconds']:6.2f}s", flush=True)
        if options.latency_runs and "divergent" in tools:
            own_path.write_text(json.dumps(divergent_figures(options.latency_runs), indent=1))
    own = json.loads(own_path.read_text()) if own_path.exists() else None
    shown = [r for r in records if options.suite == "all" or r["suite"] == options.suite]
    print()
    print(summarize(shown, tools, own))
    return 0


if __name__ == "__main__":
    sys.exit(main())
