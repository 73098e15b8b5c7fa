"""Whole programs (stdin to stdout): does ``check`` find the bugs of the program-pair suite, how fast,
and does it claim a difference where there is none; and how many runs per second the sandbox gives.

The suite (``benchmarks/program_pairs/``): one directory per pair with the two programs (C, C++,
Java, Python), a ``sample.txt`` (the statement's example), a ``validator.py`` (the constraints) and a
``meta.json`` (``programs``, ``equivalent``, ``category``, ``note``, ``output`` mode, and for a
differing pair a ``witness`` input). Differing pairs carry the classic Codeforces bugs (overflow,
off-by-one, state not reset between test cases, ties ordered differently, the sign of ``%``,
division by zero, a missing n = 1 case, rounding of negative numbers, lost precision); equivalent
pairs differ only in whitespace, float formatting, algorithm, the case of YES/NO, or on inputs the
constraints exclude.

    python benchmarks/programs.py verify                  every witness differs, every sample is valid
    python benchmarks/programs.py check [--budget 20]     verify, then found/total, false claims, median time
    python benchmarks/programs.py throughput [--runs 3000]  runs/s: trivial C, C++, Python, Java pairs
    python benchmarks/programs.py floor [--runs 3000]       fork+exec of a static binary in the sandbox
    python benchmarks/programs.py validator [--runs 1000] [--budget 10]
                                         a validator's runs/s beside a program's (the same launcher),
                                         and a search's inputs/s with it on small inputs
    python benchmarks/programs.py all

Results go to ``benchmarks/results/programs.jsonl``. Run it alone on the machine: with two cores,
anything running beside it distorts the seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import divergent
from divergent.load.whole_programs import load_program
from divergent.programs import BuildOptions
from divergent.records import Budget, OutcomeKind, TextInput
from divergent.sandbox.launch import ProgramLimits
from divergent.sandbox.process_runner import ProcessRunner
from divergent.text_comparison import OutputComparison

HERE = Path(__file__).resolve().parent
PAIRS = HERE / "program_pairs"
RESULTS = HERE / "results" / "programs.jsonl"


def load_pairs(names: str | None = None) -> list[tuple[str, Path, dict]]:
    chosen = set(names.split(",")) if names else None
    pairs = []
    for directory in sorted(p for p in PAIRS.iterdir() if p.is_dir()):
        if chosen is None or directory.name in chosen:
            pairs.append((directory.name, directory, json.loads((directory / "meta.json").read_text())))
    return pairs


def programs_of(directory: Path, meta: dict) -> list[str]:
    return [str(directory / name) for name in meta["programs"]]


def verify(pairs: list, cache: str) -> bool:
    """Every sample and witness passes the validator; every witness makes the pair differ; every
    pair agrees on its sample."""
    ok = True
    build = BuildOptions(cache_dir=cache)
    for name, directory, meta in pairs:
        validator = load_program(str(directory / "validator.py"), build=build)
        inputs = [TextInput((directory / "sample.txt").read_text())]
        if "witness" in meta:
            inputs.append(TextInput(meta["witness"]))
        with ProcessRunner([validator], limits=ProgramLimits(time_limit=5)) as runner:
            valid = [row[0].kind is OutcomeKind.OK for row in runner.run(inputs)]
        programs = [load_program(path, build=build) for path in programs_of(directory, meta)]
        comparison = OutputComparison(mode=meta.get("output", "tokens"))
        with ProcessRunner(programs, limits=ProgramLimits(time_limit=5)) as runner:
            rows = runner.run(inputs)
        sample_same = len(comparison.partition(rows[0])) == 1
        witness_differs = len(comparison.partition(rows[1])) > 1 if "witness" in meta else None
        problems = []
        if not all(valid):
            problems.append("the validator rejects the sample or the witness")
        if not sample_same:
            problems.append(f"the sample already differs: {[o.describe() for o in rows[0]]}")
        if witness_differs is False:
            problems.append(f"the witness does not differ: {[o.describe() for o in rows[1]]}")
        print(f"{name:22} {'ok' if not problems else 'FAIL: ' + '; '.join(problems)}")
        ok = ok and not problems
    return ok


def measure(name: str, directory: Path, meta: dict, budget: float, cache: str, seed: int) -> dict:
    started = time.monotonic()
    try:
        report = divergent.check(
            programs_of(directory, meta), stdin=True, examples=[str(directory / "sample.txt")],
            validator=str(directory / "validator.py"), output=meta.get("output", "tokens"),
            budget=Budget(seconds=budget), build_cache=cache, shrink=False, seed=seed,
        )
    except divergent.DivergentError as error:
        return {"pair": name, "equivalent": meta["equivalent"], "found": False, "error": str(error),
                "seconds": round(time.monotonic() - started, 3)}
    found = report.divergent
    return {
        "pair": name,
        "category": meta["category"],
        "equivalent": meta["equivalent"],
        "found": found,
        "false_claim": found and meta["equivalent"],
        "seconds": report.seconds,
        "wall": round(time.monotonic() - started, 3),
        "engine": report.counterexample.engine if report.counterexample else None,
        "input": report.counterexample.input.text[:200] if report.counterexample else None,
        "inputs": report.inputs,
        "executions": report.executions,
        "rejected": sum("rejected" in note for note in report.notes),
    }


def check_suite(pairs: list, budget: float, cache: str, seed: int) -> list[dict]:
    rows = []
    for name, directory, meta in pairs:
        row = measure(name, directory, meta, budget, cache, seed)
        rows.append(row)
        status = "FALSE CLAIM" if row.get("false_claim") else ("found" if row["found"] else "-")
        print(f"{name:22} {'equivalent' if meta['equivalent'] else 'differs':10} {status:11} "
              f"{row['seconds']:6.2f} s  {row.get('inputs', 0):6} inputs  {row.get('engine') or ''}", flush=True)
    differing = [r for r in rows if not r["equivalent"]]
    equivalent = [r for r in rows if r["equivalent"]]
    times = [r["seconds"] for r in differing if r["found"]]
    print()
    print(f"found {sum(r['found'] for r in differing)}/{len(differing)} differing pairs; "
          f"false claims {sum(r['found'] for r in equivalent)}/{len(equivalent)} equivalent pairs; "
          f"median time to a counterexample {statistics.median(times) if times else float('nan'):.2f} s "
          f"(p90 {sorted(times)[max(0, math.ceil(0.9 * len(times)) - 1)] if times else float('nan'):.2f} s)")
    return rows


TRIVIAL = {
    "c": ("echo.c", '#include <stdio.h>\nint main(void) { long long x; if (scanf("%lld", &x) == 1) printf("%lld\\n", x); }\n'),
    "cpp": ("echo.cpp", '#include <cstdio>\nint main() { long long x; if (scanf("%lld", &x) == 1) printf("%lld\\n", x); }\n'),
    "python": ("echo.py", "print(int(input()))\n"),
    "java": ("Echo.java", "public class Echo { public static void main(String[] a) {"
             " System.out.println(Long.parseLong(new java.util.Scanner(System.in).next())); } }\n"),
}


def _cpu_seconds(roots: list[int]) -> float:
    """CPU seconds used so far by this process and by every process under ``roots`` (the
    sandboxes): each live process's own time plus what its finished, waited-for children used."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    total = own.ru_utime + own.ru_stime
    ticks = os.sysconf("SC_CLK_TCK")
    todo = list(roots)
    while todo:
        pid = todo.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15]) / ticks  # utime, stime, cutime, cstime
        todo.extend(int(child) for child in children)
    return total


def throughput(runs: int, cache: str) -> list[dict]:
    """Runs per second of a pair of trivial programs (two launchers, two cores), through the
    runner the search uses (sandbox, limits, outcome per run)."""
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for language, (file_name, text) in TRIVIAL.items():
            path = Path(scratch) / file_name
            path.write_text(text)
            program = load_program(str(path), build=BuildOptions(cache_dir=cache))
            count = runs if language != "java" else max(20, runs // 5)
            runner = ProcessRunner([program, program])
            runner.run([TextInput("0\n")] * 4)  # warm up
            inputs = [TextInput(f"{i}\n") for i in range(count)]
            sandboxes = runner.sandbox_pids
            before = _cpu_seconds(sandboxes)
            started = time.monotonic()
            results = runner.run(inputs)
            seconds = time.monotonic() - started
            cpu = _cpu_seconds(sandboxes) - before
            level = runner.level.value
            runner.close()
            assert all(row is not None and row[0].stdout == f"{i}\n" for i, row in enumerate(results))
            rate = 2 * count / seconds
            # CPU per run (the launchers, the programs, and this process's share): what two free
            # cores would give, whatever else the machine was doing during the measurement
            cpu_ms = 1000 * cpu / (2 * count)
            capacity = 2 / (cpu / (2 * count))
            rows.append({"benchmark": "throughput", "language": language, "runs": 2 * count,
                         "seconds": round(seconds, 3), "runs_per_second": round(rate, 1), "isolation": level,
                         "cpu_ms_per_run": round(cpu_ms, 3), "runs_per_second_two_free_cores": round(capacity, 1)})
            print(f"{language:7} {2 * count:6} runs in {seconds:6.2f} s: {rate:7.1f} runs/s ({level}); "
                  f"{cpu_ms:.2f} ms of CPU per run, {capacity:.0f} runs/s on two free cores", flush=True)
    return rows


#: the floor: a static C program that forks and execs a static binary N times inside the sandbox,
#: each run with its input in a memfd on stdin and its stdout on a pipe read to the end, as the
#: launcher runs programs (``vfork`` 1: a vfork-like clone instead of fork, as the spawn helper)
FLOOR_SOURCE = r"""
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
static char *program; static int in_fd, out_fd;
static char stack[65536] __attribute__((aligned(16)));
static int child(void *unused) {
  dup2(in_fd, 0); dup2(out_fd, 1);
  char *argv[] = {program, NULL}, *envp[] = {NULL};
  execve(program, argv, envp); _exit(127);
}
int main(int argc, char **argv) {
  program = argv[1]; int n = atoi(argv[2]), use_vfork = atoi(argv[3]);
  char buffer[4096]; long bytes = 0;
  struct timespec start, end; clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 0; i < n; i++) {
    char text[32]; int length = snprintf(text, sizeof text, "%d\n", i);
    in_fd = memfd_create("stdin", MFD_CLOEXEC);
    if (write(in_fd, text, length) != length) return 1;
    lseek(in_fd, 0, SEEK_SET);
    int pipes[2]; if (pipe2(pipes, O_CLOEXEC) != 0) return 1;
    out_fd = pipes[1];
    pid_t pid = use_vfork ? clone(child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL) : fork();
    if (pid == 0) child(NULL);
    close(pipes[1]); close(in_fd);
    ssize_t got; while ((got = read(pipes[0], buffer, sizeof buffer)) > 0) bytes += got;
    close(pipes[0]);
    int status; waitpid(pid, &status, 0);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  struct rusage self, kids; getrusage(RUSAGE_SELF, &self); getrusage(RUSAGE_CHILDREN, &kids);
  double cpu = self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec + kids.ru_stime.tv_sec
      + (self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
  printf("%d %ld %.6f %.6f\n", n, bytes, (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9, cpu);
  return 0;
}
"""


def floor(runs: int, cache: str) -> list[dict]:
    """The floor of a run inside the sandbox: fork (or vfork) + exec of a static binary, its input
    on a memfd, its output on a pipe, from a static C program that does nothing else, in a launcher's
    sandbox (the same namespaces, filter, cgroup and limits as every run)."""
    from divergent.sandbox.builds import build
    from divergent.sandbox.isolation import choose_level
    from divergent.sandbox.launch import Job, LauncherProcess

    rows = []
    level = choose_level(None)
    with tempfile.TemporaryDirectory() as scratch:
        built = {}
        for name, text in (("floor.c", FLOOR_SOURCE), ("echo.c", TRIVIAL["c"][1])):
            path = Path(scratch) / name
            path.write_text(text)
            program = load_program(str(path), build=BuildOptions(cache_dir=cache, cflags=("-O2",), clibs=()))
            built[name] = build(program, level=level, limits=ProgramLimits())
        for use_vfork in (0, 1):
            launcher = LauncherProcess(
                mode="exec", argv=[*built["floor.c"].argv, built["echo.c"].argv[0], str(runs), str(use_vfork)],
                limits=ProgramLimits(time_limit=120.0), level=level,
                read_only=(*built["floor.c"].read_only, *built["echo.c"].read_only))
            try:
                launcher.ready()
                (result,) = launcher.run([Job()])
            finally:
                launcher.close()
            assert result is not None and result.ok, result
            count, _bytes, wall, cpu = result.stdout.split()
            cpu_ms = 1000 * float(cpu) / int(count)
            way = "vfork+exec" if use_vfork else "fork+exec"
            rows.append({"benchmark": "floor", "how": way, "runs": int(count), "seconds": float(wall),
                         "isolation": level.value, "cpu_ms_per_run": round(cpu_ms, 3),
                         "runs_per_second_two_free_cores": round(2000 / cpu_ms, 1)})
            print(f"floor {way:10} {int(count):6} runs in {float(wall):6.2f} s on one core ({level.value}): "
                  f"{cpu_ms:.3f} ms of CPU per run, {2000 / cpu_ms:.0f} runs/s on two free cores", flush=True)
    return rows


def validator_throughput(runs: int, budget: float, cache: str, pair: str = "gcd_rewrite") -> list[dict]:
    """The validator is run as the programs are (a launcher of its own per worker: the zygote for a
    script, the same containment after every run): its runs per second through the service the
    search uses (two workers, in batches as large as the search's and as large as possible) beside
    the same script's as a program under test. Then a search on small inputs with the validator
    (an equivalent pair: it runs its whole budget): inputs per second, and where its seconds went
    (the loop waiting for the validator, the programs running on the pipeline's thread, the rest:
    the engines proposing, the loop judging)."""
    from divergent.kinds import texts
    from divergent.sandbox.isolation import choose_level
    from divergent.sandbox.launch import Job
    from divergent.sandbox.process_runner import ProgramService, build_all

    directory = PAIRS / pair
    meta = json.loads((directory / "meta.json").read_text())
    build = BuildOptions(cache_dir=cache)
    validator = load_program(str(directory / "validator.py"), build=build)
    level = choose_level(None)
    # built now: the search's budget counts its builds
    build_all([load_program(path, build=build) for path in programs_of(directory, meta)], level=level,
              limits=ProgramLimits())
    texts_ = [f"3\n{i + 1} {2 * i + 2} {3 * i + 3}\n" for i in range(runs)]
    rows = []

    def measured(what: str, count: int, roots: list[int], work) -> None:
        before, started = _cpu_seconds(roots), time.monotonic()
        work()
        seconds, cpu = time.monotonic() - started, _cpu_seconds(roots) - before
        cpu_ms = 1000 * cpu / count
        rows.append({"benchmark": "validator", "what": what, "runs": count, "seconds": round(seconds, 3),
                     "runs_per_second": round(count / seconds, 1), "cpu_ms_per_run": round(cpu_ms, 3),
                     "runs_per_second_two_free_cores": round(2000 / cpu_ms, 1), "isolation": level.value})
        print(f"{what:44} {count / seconds:7.1f} runs/s ({level.value}); {cpu_ms:.2f} ms of CPU per run, "
              f"{2000 / cpu_ms:.0f} runs/s on two free cores", flush=True)

    def validate(size: int) -> None:
        for k in range(0, runs, size):
            results = service.run([Job(stdin=text.encode()) for text in texts_[k : k + size]])
            assert all(result is not None and result.ok for result in results), results

    service = ProgramService(validator, limits=ProgramLimits(time_limit=5.0, memory_mb=1024, output_bytes=64 * 1024),
                             level=level, workers=texts.VALIDATOR_WORKERS)
    try:
        service.run([Job(stdin=b"1\n1\n")] * 8)  # warm up (both workers)
        roots = [launcher.process.pid for launcher in service._launchers if launcher is not None]
        for size in (8, runs):
            measured(f"validator runs, batches of {size}", runs, roots, lambda size=size: validate(size))
    finally:
        service.close()
    with ProcessRunner([validator, validator]) as runner:
        runner.run([TextInput("1\n1\n")] * 4)
        found: list = []
        measured("the same script, as two programs under test", 2 * runs, runner.sandbox_pids,
                 lambda: found.extend(runner.run([TextInput(text) for text in texts_])))
    assert all(row is not None and row[0].kind is OutcomeKind.OK for row in found)

    # the search: where its seconds go
    spent = {"validating": 0.0, "running": 0.0}

    def timed(function, key):
        def wrapper(*args, **kwargs):
            started = time.monotonic()
            try:
                return function(*args, **kwargs)
            finally:
                spent[key] += time.monotonic() - started
        return wrapper

    verdicts, run = texts.Validator.verdicts, ProcessRunner.run
    texts.Validator.verdicts, ProcessRunner.run = timed(verdicts, "validating"), timed(run, "running")
    try:
        report = divergent.check(
            programs_of(directory, meta), stdin=True, examples=[str(directory / "sample.txt")],
            validator=str(directory / "validator.py"), output=meta.get("output", "tokens"),
            budget=Budget(seconds=budget), build_cache=cache, shrink=False, seed=0,
        )
    finally:
        texts.Validator.verdicts, ProcessRunner.run = verdicts, run
    seconds = report.seconds
    rate = report.inputs / seconds
    for note in report.notes:
        print("  note:", note[:300])
    rows.append({"benchmark": "validator", "what": f"search with the validator ({pair})", "inputs": report.inputs,
                 "rejected": report.rejected, "executions": report.executions, "seconds": round(seconds, 3),
                 "inputs_per_second": round(rate, 1), "validating_seconds": round(spent["validating"], 3),
                 "running_seconds": round(spent["running"], 3), "isolation": level.value})
    print(f"search with the validator ({pair}, {budget:g} s): {report.inputs} inputs judged, {report.rejected} "
          f"rejected, {report.executions} program runs: {rate:.1f} inputs/s; the loop waited {spent['validating']:.2f} s "
          f"for the validator; the programs ran {spent['running']:.2f} s (on the pipeline's thread, beside the loop)",
          flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("verify", "check", "throughput", "floor", "validator", "all"))
    parser.add_argument("--budget", type=float, default=20.0)
    parser.add_argument("--pairs", default=None)
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default=None, help="build cache (default: a temporary one)")
    arguments = parser.parse_args()
    pairs = load_pairs(arguments.pairs)
    with tempfile.TemporaryDirectory() as scratch:
        cache = arguments.cache or scratch
        rows: list[dict] = []
        # check verifies first: that also builds every program into the cache, so the check's
        # times (the report's, from the search's start) do not include compiling
        if arguments.what in ("verify", "check", "all") and not verify(pairs, cache):
            sys.exit(1)
        if arguments.what in ("check", "all"):
            rows += check_suite(pairs, arguments.budget, cache, arguments.seed)
        if arguments.what in ("floor", "all"):
            rows += floor(arguments.runs, cache)
        if arguments.what in ("throughput", "all"):
            rows += throughput(arguments.runs, cache)
        if arguments.what in ("validator", "all"):
            rows += validator_throughput(min(arguments.runs, 1000), arguments.budget, cache)
    if rows:
        RESULTS.parent.mkdir(exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with RESULTS.open("a") as handle:
            for row in rows:
                handle.write(json.dumps({"time": stamp, "budget": arguments.budget, **row}) + "\n")


if __name__ == "__main__":
    main()
