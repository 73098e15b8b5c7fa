"""The real-submission suite of benchmarks/contest/ stays well-formed: provenance for every
submission, a witness and a bug for every failed one, validators that accept the samples and
witnesses and reject malformed variants of them, generators whose inputs the validators accept,
and statements from which the execution judge's line-by-line reading finds numeric bounds.

The submissions' code is not in the repository (``benchmarks/contest.py materialize`` copies it
out of the repositories it comes from), so nothing here runs it; materialize is tested on a
throwaway clone and on a missing one. Validators and generators are the suite's own scripts; they
run in this process with stdin and argv replaced."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "benchmarks" / "contest"
#: the second suite, from another judge (AtCoder tasks, ConDefects' submissions): the same layout
SECOND = ROOT / "benchmarks" / "atcoder"
PROBLEMS = sorted(p.parent for p in SUITE.glob("*/meta.json")) + sorted(p.parent for p in SECOND.glob("*/meta.json"))
PROVENANCE = ("file", "role", "language", "repo", "commit", "path", "license", "verdict", "sha256", "group")


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _validate(problem: Path, text: str) -> int:
    code = compile(_validators().program_text(problem), str(problem / "validator.py"), "exec")
    saved = sys.stdin
    sys.stdin = _Stdin(text.encode())  # type: ignore[assignment]
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            exec(code, {"__name__": "__main__"})
        return 0
    except SystemExit as stop:
        return int(stop.code or 0)
    finally:
        sys.stdin = saved


def _generate(problem: Path, seed: int) -> str:
    code = compile(_validators().program_text(problem, "gen.py"), str(problem / "gen.py"), "exec")
    saved = sys.argv
    sys.argv = ["gen.py", str(seed)]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(code, {"__name__": "__main__"})
    finally:
        sys.argv = saved
    return out.getvalue()


def _validators():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import validators
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return validators


def _load_contest():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import contest
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return contest


def test_the_second_suite_is_there_and_its_statements_read_into_formats_every_sample_fits():
    from divergent.formats.infer import infer_format

    problems = sorted(p.parent for p in SECOND.glob("*/meta.json"))
    assert len(problems) >= 12
    metas = [json.loads((p / "meta.json").read_text()) for p in problems]
    assert all(s["repo"] == "appmlk/ConDefects" for m in metas for s in m["submissions"])
    assert sum(s["role"] == "failed" for m in metas for s in m["submissions"]) >= 20
    read = 0
    for problem in problems:
        samples = [p.read_text() for p in sorted((problem / "samples").glob("*.in"))]
        fmt = infer_format(samples, statement=(problem / "problem.md").read_text())
        read += fmt is not None and any(note.startswith("read from the statement") for note in fmt.notes)
    assert read >= len(problems) - 2


def test_the_suite_is_there():
    assert len(PROBLEMS) >= 20
    metas = [json.loads((p / "meta.json").read_text()) for p in PROBLEMS]
    assert sum(s["role"] == "failed" for m in metas for s in m["submissions"]) >= 40


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p.name for p in PROBLEMS])
def test_problem_is_well_formed(problem: Path):
    meta = json.loads((problem / "meta.json").read_text())
    roles = [s["role"] for s in meta["submissions"]]
    # (a second-suite task may hold accepted pairs only: its faulty submissions failed on no valid input we found)
    assert roles.count("accepted") >= 2 and roles.count("failed") >= (1 if problem.parent == SUITE else 0)
    assert set(roles) <= {"accepted", "failed"}
    for submission in meta["submissions"]:
        assert all(key in submission for key in PROVENANCE), submission["file"]
        assert re.fullmatch(r"[0-9a-f]{40}", submission["commit"])
        assert re.fullmatch(r"[0-9a-f]{64}", submission["sha256"])
        if submission["role"] == "failed":
            assert submission["witness"] and submission["bug"]
    samples = sorted((problem / "samples").glob("*.in"))
    assert len(samples) == meta["samples"] >= 1
    assert all(p.with_suffix(".out").is_file() for p in samples)
    statement = (problem / "problem.md").read_text()
    assert "## Input" in statement and "## Output" in statement and ("<=" in statement or "\\leq" in statement or "length between" in statement)


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p.name for p in PROBLEMS])
def test_validator_accepts_samples_witnesses_and_generated_inputs(problem: Path):
    meta = json.loads((problem / "meta.json").read_text())
    texts = [p.read_text() for p in sorted((problem / "samples").glob("*.in"))]
    texts += [s["witness"] for s in meta["submissions"] if s["role"] == "failed"]
    texts += [_generate(problem, seed) for seed in range(10)]
    for text in texts:
        assert _validate(problem, text) == 0, text[:80]


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p.name for p in PROBLEMS])
def test_validator_rejects_malformed_inputs(problem: Path):
    sample = sorted((problem / "samples").glob("*.in"))[0].read_text()
    first, _, rest = sample.partition("\n")
    for broken in ("", sample + "extra\n", " " + sample, first + "  \n" + rest, sample.replace("\n", "\n\n", 1)):
        if broken.rstrip("\n") != sample.rstrip("\n"):
            assert _validate(problem, broken) != 0, repr(broken[:80])


def test_statements_read_as_html_give_the_judge_bounds():
    contest = _load_contest()
    first = [p for p in PROBLEMS if p.parent == SUITE]
    found = [contest.judge_bounds(contest.statement_html((p / "problem.md").read_text()), "lines") for p in first]
    assert sum(bounds is not None for bounds in found) >= len(first) - 3
    html = contest.statement_html("# T\n\nText.\n\n## Input\n\n- 1 <= n <= 10^5\n- 0 <= a_i <= 10^9\n")
    assert "<li>1 &le; n &le; 10^5</li>" in html and "<h3>Input</h3>" in html
    assert contest.judge_bounds(html, "lines") == (0, 10**9)


def _toy_problem(contest, directory: Path, repo: str, commit: str, data: bytes):
    meta = {"file": "accepted-x.c", "role": "accepted", "repo": repo, "commit": commit, "path": "src/x.c",
            "sha256": hashlib.sha256(data).hexdigest()}
    problem = contest.Problem("toy", directory, {"submissions": [meta]})
    problem.submissions = [contest.Submission(meta["file"], meta["role"], meta)]
    return problem


def test_materialize_skips_a_repository_with_no_clone_and_says_so(tmp_path: Path, capsys):
    contest = _load_contest()
    problem = _toy_problem(contest, tmp_path / "toy", "someone/absent", "0" * 40, b"int main(){}\n")
    (tmp_path / "toy").mkdir()
    assert contest.materialize([problem], tmp_path / "mirrors") is False
    out = capsys.readouterr().out
    assert "skipped: no clone of someone/absent" in out and "0 of 1 submission(s) copied, 1 skipped" in out
    assert contest._missing([problem]) == ["toy/accepted-x.c"]


def test_materialize_copies_from_a_clone_and_checks_the_hash(tmp_path: Path, capsys):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    contest = _load_contest()
    clone = tmp_path / "mirrors" / "someone+solutions" / "repo"
    (clone / "src").mkdir(parents=True)
    data = b"int main(){return 0;}\n"
    (clone / "src" / "x.c").write_bytes(data)
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    (tmp_path / "toy").mkdir()
    problem = _toy_problem(contest, tmp_path / "toy", "someone/solutions", commit, data)
    assert contest.materialize([problem], tmp_path / "mirrors") is True
    assert (tmp_path / "toy" / "submissions" / "accepted-x.c").read_bytes() == data
    assert contest._missing([problem]) == []
    (tmp_path / "toy" / "submissions" / "accepted-x.c").unlink()
    problem.submissions[0].meta["sha256"] = "0" * 64
    assert contest.materialize([problem], tmp_path / "mirrors") is False
    assert "sha256 differs" in capsys.readouterr().out
    assert not (tmp_path / "toy" / "submissions" / "accepted-x.c").exists()

