"""Input formats of whole programs: how many of the inputs the engines make are valid, by what the
format was inferred from.

For each problem of a suite (a directory per problem with a strict ``validator.py``, samples, and
optionally a statement and the programs' sources), the input format is inferred as
``divergent.formats.infer.infer_format`` does in a check, from four sources of knowledge:

* ``samples+statement+programs``: what ``divergent check --example ... --statement ...`` sees;
* ``samples+programs``: ``--example`` alone (the programs' sources are always read);
* ``statement+programs``: no sample, as an execution judge given a statement without one;
* ``programs``: nothing but how the programs read their input.

Then inputs are made as the engines make them and judged by the problem's strict validator:

* ``drawn``: inputs drawn from the format at the grammar engine's first caps (20 and 70);
* ``mutated``: children of the samples made by the mutation engine within the format, and
  ``mutated, no format``: the same engine without one (the structure it reads from the text alone),
  with no validator feedback in either (the search's feedback only adds to this).

Nothing here runs a submission: the validators (the suite's own, strict, written from the
statements) run in one child process per problem. Suites:

* ``--suite benchmarks/contest`` (36 Codeforces problems with real submissions: ``problem.md``,
  ``samples/K.in``, ``submissions/``; see ``contest.py``; materialize the submissions first);
* ``--suite benchmarks/program_pairs`` (the whole-program pairs: ``sample.txt``, the two programs).

    python benchmarks/input_formats.py --suite benchmarks/contest [--draws 100] [--problems cf46A,cf452A]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from divergent.engines.base import TextContext
from divergent.engines.text.lessons import Lessons
from divergent.engines.text.mutation import TextMutationEngine
from divergent.errors import EngineCannotProceed
from divergent.formats.infer import infer_format
from divergent.formats.instances import Misfit, generate
from divergent.formats.model import InputFormat
from divergent.formats.text_structure import render
from divergent.records import TextInput
from validators import standalone_validator

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "input_formats.jsonl"
LANGUAGES = {".py": "python", ".c": "c", ".cpp": "cpp", ".cc": "cpp", ".java": "java"}
SOURCES = ("samples+statement+programs", "samples+programs", "statement+programs", "programs")

# One child per problem runs its validator on every input (runpy, a fresh namespace each time):
# one line of JSON in (the inputs), one line out (exit code per input).
_JUDGE = r"""
import io, json, runpy, sys
path = sys.argv[1]
texts = json.loads(sys.stdin.readline())
real_stdin, real_stderr = sys.stdin, sys.stderr
codes = []
for text in texts:
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8", "surrogateescape")), encoding="utf-8")
    sys.stderr = io.StringIO()
    try:
        runpy.run_path(path, run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        code = 1
    codes.append(code)
sys.stdin, sys.stderr = real_stdin, real_stderr
print(json.dumps(codes))
"""


class Problem:
    def __init__(self, directory: Path) -> None:
        directory = directory.resolve()
        self.id = directory.name
        self.directory = directory
        samples = sorted((directory / "samples").glob("*.in")) or sorted(directory.glob("sample*.txt"))
        self.samples = [path.read_text(encoding="utf-8") for path in samples]
        statement = directory / "problem.md"
        self.statement = statement.read_text(encoding="utf-8") if statement.is_file() else None
        folder = directory / "submissions" if (directory / "submissions").is_dir() else directory
        self.programs = [(path.read_text(encoding="utf-8", errors="replace"), LANGUAGES[path.suffix])
                         for path in sorted(folder.iterdir())
                         if path.suffix in LANGUAGES and path.name not in ("validator.py", "gen.py")]
        self.validator = standalone_validator(directory)

    def infer(self, source: str) -> InputFormat | None:
        return infer_format(self.samples if "samples" in source else [],
                            statement=self.statement if "statement" in source else None,
                            programs=self.programs)

    def valid(self, texts: list[str]) -> list[bool]:
        if not texts:
            return []
        done = subprocess.run([sys.executable, "-c", _JUDGE, str(self.validator)], input=json.dumps(texts) + "\n",
                              capture_output=True, text=True, timeout=600, cwd=self.directory)
        codes = json.loads(done.stdout.strip().splitlines()[-1])
        return [code == 0 for code in codes]


class _Services:
    """What the mutation engine asks of a search, with every input admitted (no feedback)."""

    generator = None

    def __init__(self, fmt: InputFormat | None) -> None:
        self.input_format = fmt
        self.lessons = Lessons()

    def admit(self, items: list) -> list[bool]:
        return [True] * len(items)

    def rejection_messages(self) -> list[str]:
        return []

    def rejection_reason(self, item: object) -> str:
        return ""


def drawn(fmt: InputFormat, count: int, seed: int) -> list[str]:
    rng, texts = random.Random(seed), []
    for index in range(count * 3):
        if len(texts) >= count:
            break
        try:
            text = render(generate(fmt, rng, cap=(20, 70)[index % 2]))
        except Misfit:
            continue
        if len(text) <= 1_000_000:
            texts.append(text)
    return texts


def mutated(problem: Problem, fmt: InputFormat | None, count: int, seed: int) -> list[str]:
    if not problem.samples:
        return []
    context = TextContext(implementations=(),  # type: ignore[arg-type]
                          seeds=tuple(TextInput(text) for text in problem.samples), constants=None,
                          services=_Services(fmt), seed=seed)
    engine = TextMutationEngine(context)
    texts: list[str] = []
    for _ in range(50):
        if len(texts) >= count:
            break
        try:
            texts.extend(item.text for item in engine.propose(min(20, count - len(texts))))
        except EngineCannotProceed:  # a small input space, every child made already
            break
    return texts[:count]


def measure(problem: Problem, draws: int, seed: int) -> list[dict]:
    rows = []
    for source in SOURCES:
        if ("samples" in source and not problem.samples) or ("statement" in source and not problem.statement):
            continue
        fmt = problem.infer(source)
        row: dict = {"problem": problem.id, "source": source, "format": fmt.text() if fmt else None,
                     "origin": fmt.origin if fmt else None}
        batches = {"drawn": drawn(fmt, draws, seed) if fmt is not None else []}
        if source == "samples+programs":
            batches["mutated"] = mutated(problem, fmt, draws, seed)
            batches["mutated, no format"] = mutated(problem, None, draws, seed)
        for name, texts in batches.items():
            verdicts = problem.valid(texts)
            row[name] = [sum(verdicts), len(verdicts)]
        rows.append(row)
    return rows


def _share(pairs: list[list[int]]) -> str:
    valid, total = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    return f"{valid}/{total} ({100 * valid / total:.0f}%)" if total else "-"


def summarize(rows: list[dict]) -> None:
    by: dict[tuple[str, str], list[list[int]]] = defaultdict(list)
    inferred: dict[str, int] = defaultdict(int)
    problems = len({row["problem"] for row in rows})
    for row in rows:
        inferred[row["source"]] += row["format"] is not None
        for name in ("drawn", "mutated", "mutated, no format"):
            if name in row:
                by[(row["source"], name)].append(row[name])
    print()
    print(f"{'knowledge':28} {'format':>8}  {'drawn valid':>18}  {'mutated valid':>18}  {'mutated, no format':>18}")
    for source in SOURCES:
        if not any(row["source"] == source for row in rows):
            continue
        cells = [_share(by[(source, name)]) if by.get((source, name)) else "" for name in
                 ("drawn", "mutated", "mutated, no format")]
        print(f"{source:28} {inferred[source]:>3}/{problems:<4}  {cells[0]:>18}  {cells[1]:>18}  {cells[2]:>18}")
    # per problem, the drawn share with the most knowledge: where the formats fall short
    most = next(source for source in SOURCES if any(row["source"] == source for row in rows))
    weak = sorted((row["drawn"][0] / row["drawn"][1], row["problem"]) for row in rows
                  if row["source"] == most and row.get("drawn") and row["drawn"][1])
    print(f"lowest drawn shares ({most}): " + ", ".join(f"{problem} {100 * share:.0f}%" for share, problem in weak[:8]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", type=Path, default=HERE / "contest")
    parser.add_argument("--problems", help="comma-separated problem ids (default: all)")
    parser.add_argument("--draws", type=int, default=100, help="inputs per format and way of making them")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    chosen = set(args.problems.split(",")) if args.problems else None
    directories = sorted(p for p in args.suite.iterdir() if (p / "validator.py").is_file()
                         and (chosen is None or p.name in chosen))
    if not directories:
        print(f"no problem with a validator.py under {args.suite}", file=sys.stderr)
        return 2
    load = os.getloadavg()
    print(f"{len(directories)} problems from {args.suite}, {args.draws} inputs each way, seed {args.seed}, "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    started, rows = time.monotonic(), []
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for directory in directories:
        problem_rows = measure(Problem(directory), args.draws, args.seed)
        for row in problem_rows:
            cells = "  ".join(f"{name} {row[name][0]}/{row[name][1]}" for name in
                              ("drawn", "mutated", "mutated, no format") if name in row)
            first = (row["format"] or "no format").strip().replace("\n", " | ")
            print(f"{row['problem']:18} {row['source']:28} {cells:52} {first[:70]}", flush=True)
        rows.extend(problem_rows)
    with args.out.open("a", encoding="utf-8") as stream:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        for row in rows:
            stream.write(json.dumps({"time": stamp, "suite": args.suite.name, "draws": args.draws,
                                     "seed": args.seed, **row}) + "\n")
    summarize(rows)
    print(f"{time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
