"""Whole programs on real contest submissions: does ``divergent check`` refute real failed submissions
from the statement's samples alone, does it ever claim a difference between real accepted ones, how
many of the inputs it makes are valid, and how the execution judge does with no sample at all.

The suite (``benchmarks/contest/``, see its README): one directory per problem, a classic Codeforces
problem, with ``problem.md`` (the statement in our own words, constraints as ``1 <= n <= 100``
lines), ``samples/K.in`` and ``K.out`` (the statement's samples), ``validator.py`` (strict, written
from the statement), ``gen.py`` (a hand-written random generator, seed in argv[1]) and ``meta.json``
(the submissions: accepted and failed, each with its repository, commit, path, verdict as kept,
licence and sha256; a failed one also with a ``witness``, a valid input on which it is wrong, and
its ``bug``). The submissions' code is not in this repository: ``materialize`` copies it out of git
clones of the repositories it comes from, into each problem's ``submissions/`` (ignored by git).

    python benchmarks/contest.py materialize --mirrors /work/.mirror   # DIR/owner+name/repo[/.git]
    python benchmarks/contest.py verify                 # samples, witnesses, accepted vs samples
    python benchmarks/contest.py check --budget 10      # the measurement (samples only)
    python benchmarks/contest.py check --with-generator # the same, divergent also given gen.py
    python benchmarks/contest.py judge --budget 10      # the execution judge, samples withheld
    python benchmarks/contest.py check --problems cf478A,cf71A --jobs 2
    python benchmarks/contest.py check --suite benchmarks/atcoder --knowledge samples   # the second suite, samples only
    python benchmarks/contest.py check --knowledge statement   # samples + --statement problem.md, no validator
    DIVERGENT_SRC=/tmp/old/src python benchmarks/contest.py check   # another revision's code (git archive REV src)

``--knowledge`` says what divergent is given besides the programs: ``validator`` (the samples and the
strict validator, the default), ``samples`` (the samples alone), ``statement`` (the samples and
``problem.md``), ``all`` (the three). Whatever it is given, a witness counts as refuting only if the
strict validator accepts it, and a claim on an input it rejects is counted apart.

``check`` runs, per failed submission, ``divergent check FAILED REFERENCE --stdin --example
samples/*.in --validator validator.py --budget N --json --no-shrink`` (the reference: the first
accepted submission not from the failed one's author), and per other accepted submission the same
against the reference (any difference there is a false claim). ``judge`` follows the EquiBench OJ
execution judge (``divergent.bench.equibench.exec_oj``): the statement's numeric bounds as the only
validator and ``1`` as the only seed, no sample; a witness then counts only if the strict validator
accepts it. Rows go to ``benchmarks/results/contest.jsonl`` (``--out``); run it alone on the
machine or note the load, which the script records (``os.getloadavg``).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import html
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from divergent.bench.equibench.statement import numeric_bounds, range_validator, statement_text
from divergent.load.whole_programs import load_program
from divergent.programs import BuildOptions
from divergent.records import OutcomeKind, TextInput
from divergent.sandbox.launch import ProgramLimits
from divergent.sandbox.process_runner import ProcessRunner
from divergent.text_comparison import OutputComparison
from validators import standalone_program, standalone_validator

HERE = Path(__file__).resolve().parent
SUITE = HERE / "contest"
RESULTS = HERE / "results" / "contest.jsonl"
CACHE = Path(tempfile.gettempdir()) / "divergent-contest-builds"


@dataclass(frozen=True)
class Submission:
    file: str
    role: str  # "accepted" or "failed"
    meta: dict

    @property
    def group(self) -> str:
        """Submissions of one group probably share an author (a Codeflaws defect: buggy and fixed)."""
        return str(self.meta.get("group", self.file))


@dataclass
class Problem:
    id: str
    directory: Path
    meta: dict
    submissions: list[Submission] = field(default_factory=list)

    @property
    def samples(self) -> list[Path]:
        return sorted((self.directory / "samples").glob("*.in"), key=lambda p: int(p.stem))

    @property
    def accepted(self) -> list[Submission]:
        return [s for s in self.submissions if s.role == "accepted"]

    @property
    def failed(self) -> list[Submission]:
        return [s for s in self.submissions if s.role == "failed"]

    def path(self, submission: Submission) -> Path:
        return self.directory / "submissions" / submission.file

    def reference_for(self, submission: Submission) -> Submission:
        """The accepted submission a failed one (or another accepted one) is checked against: the
        first accepted one of another group (author), else the first."""
        others = [s for s in self.accepted if s.group != submission.group and s is not submission]
        return others[0] if others else self.accepted[0]

    def statement(self) -> str:
        """The statement as a judge without samples gets it: problem.md (which holds no sample)
        as the simple HTML of an online judge's page, constraints as list items."""
        return statement_html((self.directory / "problem.md").read_text(encoding="utf-8"))


def statement_html(markdown: str) -> str:
    """Headings, paragraphs and ``- `` lists of our problem.md as HTML (``<=`` as ``&le;``), the
    shape of EquiBench's OJ statements, which the judge's statement reader expects."""
    parts: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if paragraph:
            parts.append(f"<p>{' '.join(paragraph)}</p>")
            paragraph.clear()
        if items:
            parts.append("<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>")
            items.clear()

    for raw in markdown.splitlines():
        line = html.escape(raw.strip(), quote=False).replace("&lt;=", "&le;").replace("&gt;=", "&ge;")
        if not line:
            flush()
        elif line.startswith("#"):
            flush()
            level = min(6, len(line) - len(line.lstrip("#")) + 1)
            parts.append(f"<h{level}>{line.lstrip('#').strip()}</h{level}>")
        elif line.startswith("- "):
            if paragraph:
                flush()
            items.append(line[2:])
        else:
            paragraph.append(line)
    flush()
    return "\n".join(parts)


def load_problems(names: str | None = None, suite: Path = SUITE) -> list[Problem]:
    chosen = set(names.split(",")) if names else None
    problems = []
    for directory in sorted(p for p in suite.iterdir() if (p / "meta.json").is_file()):
        if chosen is not None and directory.name not in chosen:
            continue
        meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        problem = Problem(directory.name, directory, meta)
        problem.submissions = [Submission(s["file"], s["role"], s) for s in meta["submissions"]]
        problems.append(problem)
    if chosen is not None and len(problems) != len(chosen):
        missing = chosen - {p.id for p in problems}
        raise SystemExit(f"no such problem(s): {', '.join(sorted(missing))}")
    return problems


# ---------------------------------------------------------------------------------------------
# materialize: the submissions out of git clones of their repositories


def _git_dir(mirrors: Path, repo: str) -> Path:
    base = mirrors / repo.replace("/", "+") / "repo"
    return base / ".git" if (base / ".git").is_dir() else base


def materialize(problems: list[Problem], mirrors: Path) -> bool:
    """Copy each submission out of its repository's clone under ``mirrors``, checking its sha256.
    A repository with no clone there is named once and its submissions skipped (the rest are still
    copied); the answer is False if anything was skipped or differs."""
    ok = True
    absent = sorted({s.meta["repo"] for p in problems for s in p.submissions
                     if not _git_dir(mirrors, s.meta["repo"]).is_dir()})
    for repo in absent:
        print(f"skipped: no clone of {repo} at {mirrors / repo.replace('/', '+') / 'repo'} "
              f"(git clone https://github.com/{repo} there, then run materialize again)")
    for problem in problems:
        (problem.directory / "submissions").mkdir(exist_ok=True)
        copied = skipped = 0
        for submission in problem.submissions:
            meta = submission.meta
            target = problem.path(submission)
            if meta["repo"] in absent:
                skipped += 1
                ok = False
                continue
            shown = subprocess.run(
                ["git", "--git-dir", str(_git_dir(mirrors, meta["repo"])), "show", f"{meta['commit']}:{meta['path']}"],
                capture_output=True,
            )
            if shown.returncode != 0:
                print(f"{problem.id}/{submission.file}: {meta['repo']}@{meta['commit'][:10]}:{meta['path']}: "
                      f"{shown.stderr.decode(errors='replace').strip()[:200]}")
                ok = False
                continue
            data = gzip.decompress(shown.stdout) if meta["path"].endswith(".gz") else shown.stdout
            if hashlib.sha256(data).hexdigest() != meta["sha256"]:
                print(f"{problem.id}/{submission.file}: sha256 differs from meta.json")
                ok = False
                continue
            target.write_bytes(data)
            copied += 1
        print(f"{problem.id:8} {copied} of {len(problem.submissions)} submission(s) copied"
              + (f", {skipped} skipped (no clone)" if skipped else ""))
    return ok


def _missing(problems: list[Problem]) -> list[str]:
    return [f"{p.id}/{s.file}" for p in problems for s in p.submissions if not p.path(s).is_file()]


# ---------------------------------------------------------------------------------------------
# verify: the suite says what it claims


def _run(programs: list[str], inputs: list[str]) -> list[tuple]:
    build = BuildOptions(cache_dir=str(CACHE))
    loaded = [load_program(path, build=build) for path in programs]
    with ProcessRunner(loaded, limits=ProgramLimits(time_limit=5)) as runner:
        return runner.run([TextInput(text) for text in inputs])


def verify(problems: list[Problem]) -> bool:
    """Every sample and witness is valid; every accepted submission prints each sample's expected
    output; every failed one passes the samples and is wrong on its witness, where the accepted
    ones agree."""
    ok = True
    comparison = OutputComparison()
    for problem in problems:
        issues: list[str] = []
        samples = [p.read_text() for p in problem.samples]
        expected = [p.with_suffix(".out").read_text() for p in problem.samples]
        witnesses = [s.meta.get("witness") for s in problem.failed]
        if None in witnesses:
            issues.append("a failed submission has no witness")
        texts = samples + [w for w in witnesses if w is not None]
        valid = _run([str(standalone_validator(problem.directory))], texts)
        issues += [f"the validator rejects {'sample' if i < len(samples) else 'witness'} {i + 1}"
                   for i, row in enumerate(valid) if row is None or row[0].kind is not OutcomeKind.OK]
        paths = [str(problem.path(s)) for s in problem.submissions]
        rows = _run(paths, texts)
        for index, submission in enumerate(problem.submissions):
            for k, answer in enumerate(expected):
                outcome = rows[k][index] if rows[k] is not None else None
                right = outcome is not None and outcome.kind is OutcomeKind.OK and outcome.stdout.split() == answer.split()
                if not right:
                    issues.append(f"{submission.file} is wrong on sample {k + 1}")
        accepted = [i for i, s in enumerate(problem.submissions) if s.role == "accepted"]
        for k, submission in enumerate(problem.failed):
            if submission.meta.get("witness") is None:
                continue
            row = rows[len(samples) + k]
            index = problem.submissions.index(submission)
            reference = problem.submissions.index(problem.reference_for(submission))
            classes = comparison.partition(tuple(row[i] for i in accepted))
            if len(classes) != 1:
                issues.append(f"the accepted submissions disagree on the witness of {submission.file}")
            if len(comparison.partition((row[index], row[reference]))) == 1:
                issues.append(f"{submission.file} is right on its witness")
        print(f"{problem.id:8} {'ok' if not issues else 'FAIL: ' + '; '.join(issues)}", flush=True)
        ok = ok and not issues
    return ok


# ---------------------------------------------------------------------------------------------
# check and judge: divergent's command line, one process per pair


@dataclass(frozen=True)
class Pair:
    problem: Problem
    subject: Submission
    reference: Submission

    @property
    def kind(self) -> str:
        return "failed" if self.subject.role == "failed" else "accepted"


def pairs_of(problems: list[Problem]) -> list[Pair]:
    pairs = []
    for problem in problems:
        for submission in problem.failed:
            pairs.append(Pair(problem, submission, problem.reference_for(submission)))
        reference = problem.accepted[0]
        for submission in problem.accepted[1:]:
            pairs.append(Pair(problem, submission, reference))
    return pairs


def _divergent(pair: Pair, examples: list[Path], validator: Path | None, budget: float, seed: int,
               extra: list[str]) -> dict:
    command = [sys.executable, "-m", "divergent", "check", str(pair.problem.path(pair.subject)),
               str(pair.problem.path(pair.reference)), "--stdin",
               "--budget", str(budget), "--seed", str(seed), "--json", "--no-shrink",
               "--output", pair.problem.meta.get("output", "tokens"), "--build-cache", str(CACHE), *extra]
    if validator is not None:
        command += ["--validator", str(validator)]
    for example in examples:
        command += ["--example", str(example)]
    started = time.monotonic()
    # DIVERGENT_SRC: the source tree to measure (another revision's, extracted with git archive)
    source = os.environ.get("DIVERGENT_SRC", str(HERE.parent / "src"))
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": source})
    wall = time.monotonic() - started
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        report = {"verdict": "error", "error": (done.stderr or done.stdout).strip()[-400:]}
    report["wall"] = wall
    report["exit_code"] = done.returncode
    return report


def _first_divergence(report: dict) -> float | None:
    for point in report.get("timeline") or ():
        if any(counts.get("divergences", 0) for counts in point.get("engines", {}).values()):
            return float(point["seconds"])
    return report.get("seconds") if report.get("verdict") == "divergent" else None


def _valid(problem: Problem, text: str) -> bool:
    row = _run([str(standalone_validator(problem.directory))], [text])[0]
    return row is not None and row[0].kind is OutcomeKind.OK


def _row(pair: Pair, mode: str, report: dict, budget: float, seed: int) -> dict:
    counterexample = report.get("counterexample") or {}
    stdin = counterexample.get("stdin")
    row = {
        "mode": mode, "problem": pair.problem.id, "kind": pair.kind, "subject": pair.subject.file,
        "reference": pair.reference.file, "budget": budget, "seed": seed,
        "verdict": report.get("verdict"), "engine": report.get("engine"),
        "seconds": report.get("seconds"), "wall": round(report["wall"], 3),
        "first_divergence": _first_divergence(report),
        "inputs": report.get("inputs", 0), "rejected": report.get("rejected", 0),
        "executions": report.get("executions", 0), "exit_reason": report.get("exit_reason"),
        "input": stdin[:2000] if stdin is not None else None,
        "error": report.get("error"), "load": round(os.getloadavg()[0], 2),
    }
    if "bounds" in report:
        row["bounds"] = report["bounds"]
    if stdin is not None:
        row["strictly_valid"] = _valid(pair.problem, stdin)
    return row


def judge_bounds(statement: str, reading: str) -> tuple[int, int] | None:
    """The numeric bounds the judge uses: ``statement`` reads the whole statement as the EquiBench
    judge does; ``lines`` reads each line of it alone and takes the widest range (a cross-check of
    the reader: on this suite both give the same bounds since constraints that start a line are read)."""
    if reading == "statement":
        return numeric_bounds(statement)
    found = [numeric_bounds(line.strip()) for line in statement_text(statement).splitlines() if line.strip()]
    found = [b for b in found if b is not None]
    return (min(b[0] for b in found), max(b[1] for b in found)) if found else None


def run_pairs(pairs: list[Pair], mode: str, budget: float, seed: int, jobs: int, out: Path,
              reading: str = "statement", generator: bool = False, knowledge: str = "validator") -> list[dict]:
    out.parent.mkdir(parents=True, exist_ok=True)

    def one(pair: Pair) -> dict:
        problem = pair.problem
        if mode == "check":
            extra = ["--generator", str(standalone_program(problem.directory, "gen.py"))] if generator else []
            if knowledge in ("statement", "all"):
                extra += ["--statement", str(problem.directory / "problem.md")]
            validator = standalone_validator(problem.directory) if knowledge in ("validator", "all") else None
            report = _divergent(pair, problem.samples, validator, budget, seed, extra)
        else:
            with tempfile.TemporaryDirectory(prefix="divergent-judge-") as scratch:
                seed_file = Path(scratch) / "seed.txt"
                seed_file.write_text("1\n")
                bounds = judge_bounds(problem.statement(), reading)
                validator: Path | None = None
                if bounds is not None:
                    validator = Path(scratch) / "validator.py"
                    validator.write_text(range_validator(bounds))
                report = _divergent(pair, [seed_file], validator, budget, seed, [])
                report["bounds"] = bounds
        row = _row(pair, mode, report, budget, seed)
        if mode == "judge":
            row["reading"] = reading
        row["generator"] = generator
        row["knowledge"] = knowledge if mode == "check" else "judge"
        row["suite"] = problem.directory.parent.name
        status = row["verdict"] if row["verdict"] != "divergent" else (
            "refuted" if row.get("strictly_valid") else "claimed on an INVALID input")
        print(f"{mode:5} {problem.id:8} {pair.kind:8} {pair.subject.file:34} {status:28} "
              f"{row['first_divergence'] or row['seconds'] or 0:6.1f} s  {row['inputs']:6} in  "
              f"{row['rejected']:6} rej  {row['engine'] or ''}", flush=True)
        with out.open("a", encoding="utf-8") as stream:
            stream.write(json.dumps(row) + "\n")
        return row

    if jobs <= 1:
        return [one(pair) for pair in pairs]
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(one, pairs))


def _percent(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


def summarize(rows: list[dict], mode: str) -> dict:
    failed = [r for r in rows if r["kind"] == "failed"]
    accepted = [r for r in rows if r["kind"] == "accepted"]
    refuted = [r for r in failed if r["verdict"] == "divergent" and r.get("strictly_valid")]
    invalid = [r for r in rows if r["verdict"] == "divergent" and not r.get("strictly_valid")]
    claims = [r for r in accepted if r["verdict"] == "divergent"]
    errors = [r for r in rows if r["verdict"] == "error"]
    times = sorted(r["first_divergence"] for r in refuted if r["first_divergence"] is not None)

    def share(group: list[dict]) -> tuple[int, int]:
        judged = sum(r["inputs"] for r in group)
        return judged, judged + sum(r["rejected"] for r in group)

    all_valid, all_total = share(rows)
    acc_valid, acc_total = share(accepted)
    summary = {
        "mode": mode, "failed": len(failed), "refuted": len(refuted), "accepted_pairs": len(accepted),
        "false_claims": len(claims), "claims_on_invalid_inputs": len(invalid), "errors": len(errors),
        "valid_share": round(all_valid / all_total, 4) if all_total else None,
        "valid_share_accepted_pairs": round(acc_valid / acc_total, 4) if acc_total else None,
        "median_seconds": statistics.median(times) if times else None,
        "p90_seconds": times[max(0, round(0.9 * len(times)) - 1)] if times else None,
        "missed": [f"{r['problem']}/{r['subject']}" for r in failed if r not in refuted],
        "verdicts_accepted": dict(sorted(Counter(r["verdict"] for r in accepted).items())),
        "verdicts_failed": dict(sorted(Counter(r["verdict"] for r in failed).items())),
        "inputs_per_second": round(all_valid / sum(r["seconds"] or 0 for r in rows), 1)
        if sum(r["seconds"] or 0 for r in rows) else None,
    }
    print()
    print(f"[{mode}] failed submissions refuted: {_percent(len(refuted), len(failed))}; "
          f"claims between accepted submissions: {len(claims)}/{len(accepted)}; "
          f"claims on inputs the strict validator rejects: {len(invalid)}; errors: {len(errors)}")
    print(f"[{mode}] inputs the validator accepted: {_percent(all_valid, all_total)} over all runs, "
          f"{_percent(acc_valid, acc_total)} over the accepted pairs (which run their whole budget)")
    if times:
        print(f"[{mode}] seconds to the first counterexample: median {summary['median_seconds']:.2f}, "
              f"p90 {summary['p90_seconds']:.2f}")
    print(f"[{mode}] verdicts: accepted pairs {summary['verdicts_accepted']}, failed {summary['verdicts_failed']}; "
          f"valid inputs judged per second of search: {summary['inputs_per_second']}")
    for name in summary["missed"]:
        print(f"[{mode}] missed: {name}")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("materialize", "verify", "check", "judge", "list"))
    parser.add_argument("--problems", help="comma-separated problem ids (default: all)")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"),
                        help="git clones as DIR/owner+name/repo (materialize)")
    parser.add_argument("--budget", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--kind", choices=("all", "failed", "accepted"), default="all")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--suite", type=Path, default=SUITE,
                        help="the directory of problems (default: contest/; the second suite: atcoder/)")
    parser.add_argument("--knowledge", choices=("validator", "samples", "statement", "all"), default="validator",
                        help="check: what divergent is given besides the programs: the samples and the strict "
                             "validator (default), the samples alone, the samples and the statement (problem.md), "
                             "or all three")
    parser.add_argument("--with-generator", action="store_true",
                        help="check: also give divergent the problem's hand-written generator (gen.py)")
    parser.add_argument("--bounds", choices=("statement", "lines"), default="statement",
                        help="judge: read the statement's numeric bounds as the EquiBench judge does "
                             "(statement) or line by line (lines, a cross-check of the reader)")
    args = parser.parse_args(argv)
    problems = load_problems(args.problems, args.suite)
    if args.command == "list":
        for problem in problems:
            languages = sorted({s.meta["language"] for s in problem.submissions})
            print(f"{problem.id:8} {problem.meta['name'][:36]:36} {len(problem.samples)} sample(s) "
                  f"{len(problem.accepted)} accepted {len(problem.failed)} failed  {','.join(languages)}")
        print(f"{len(problems)} problems, {sum(len(p.accepted) for p in problems)} accepted and "
              f"{sum(len(p.failed) for p in problems)} failed submissions")
        return 0
    if args.command == "materialize":
        return 0 if materialize(problems, args.mirrors) else 1
    missing = _missing(problems)
    if missing:
        print(f"{len(missing)} submission(s) not materialized (first: {missing[0]}); run "
              "`python benchmarks/contest.py materialize --mirrors DIR` first", file=sys.stderr)
        return 2
    if args.command == "verify":
        return 0 if verify(problems) else 1
    pairs = [p for p in pairs_of(problems) if args.kind in ("all", p.kind)]
    print(f"{args.command}: {len(pairs)} pairs, budget {args.budget:g} s, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    rows = run_pairs(pairs, args.command, args.budget, args.seed, args.jobs, args.out, args.bounds,
                     args.with_generator, args.knowledge)
    mode = f"judge/{args.bounds}" if args.command == "judge" else (
        "check+generator" if args.with_generator else "check") + (
        f"/{args.knowledge}" if args.command == "check" and args.knowledge != "validator" else "")
    summary = summarize(rows, mode)
    summary.update(budget=args.budget, seed=args.seed, load=os.getloadavg()[0], problems=len(problems),
                   suite=args.suite.name, knowledge=args.knowledge)
    with args.out.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps({"summary": summary}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
