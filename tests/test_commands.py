"""Commands (``cmd:COMMAND``): the third kind of program, one module (divergent.kinds.commands) and one
line in the kinds' registry. A command line runs under ``/bin/sh -c`` in the sandbox with its input
on stdin; what it printed and its exit status are compared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import divergent
from divergent import TextInput
from divergent.errors import InvalidArgument, LoadError
from divergent.kinds.commands import COMMANDS, Command, CommandComparison
from divergent.kinds.registry import KINDS, choose_kind, kind_named
from divergent.records import Budget, Outcome, OutcomeKind
from divergent.search import SearchOptions, outcomes_on

ROOT = Path(__file__).resolve().parents[1]
FAST = {"budget": Budget(seconds=20, executions=400)}


def test_a_command_spec_chooses_the_kind_and_loads_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert KINDS["command"] == "divergent.kinds.commands:COMMANDS" and kind_named("command") is COMMANDS
    options = SearchOptions()
    assert choose_kind(["cmd:sort -n", "cmd:sort"], options) is COMMANDS
    (first, second) = COMMANDS.load(["cmd:sort -n", "cmd:sort -n"], options)
    assert isinstance(first, Command) and first.line == "sort -n" and first.directory == str(tmp_path)
    assert (first.label, second.label) == ("cmd:sort -n#1", "cmd:sort -n#2")
    assert choose_kind([first, second], options) is COMMANDS
    assert COMMANDS.load([first], options) == (first,)  # a loaded command is taken as it is
    with pytest.raises(InvalidArgument, match="commands and whole programs cannot be compared"):
        choose_kind(["cmd:sort", "a.cpp"], options)
    with pytest.raises(InvalidArgument, match="is not a command"):
        COMMANDS.load(["cmd:sort", "other.py"], options)
    with pytest.raises(LoadError, match="no command"):
        COMMANDS.load(["cmd:  "], options)


def test_the_exit_status_is_part_of_the_answer() -> None:
    comparison = CommandComparison()
    no_match = Outcome(OutcomeKind.RUNTIME_ERROR, stdout="0\n", exit_code=1)
    error = Outcome(OutcomeKind.RUNTIME_ERROR, stdout="0\n", exit_code=2)
    printed = Outcome(OutcomeKind.OK, stdout="0\n", exit_code=0)
    assert comparison.partition([no_match, error, printed, no_match]) == ((0, 3), (1,), (2,))
    # failing alike is compared on the output too (whole programs' runtime errors are all one class)
    assert not comparison.outcomes_equal(no_match, Outcome(OutcomeKind.RUNTIME_ERROR, stdout="1\n", exit_code=1))
    assert comparison.describe() == "exit status, output=tokens, timeouts=hang"


def test_check_finds_a_difference_only_the_exit_status_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sample.txt").write_text("3\n10\n")
    # `grep -c` exits 1 when nothing matches; counting through a pipe exits 0 (wc's status)
    report = divergent.check(["cmd:grep -c 7", "cmd:grep 7 | wc -l"], examples=["sample.txt"], **FAST)
    assert report.divergent and report.kind == "command"
    cx = report.counterexample
    assert cx is not None and isinstance(cx.input, TextInput)
    first, second = cx.outcomes
    assert (first.kind, first.exit_code, second.kind, second.exit_code) == (OutcomeKind.RUNTIME_ERROR, 1, OutcomeKind.OK, 0)
    assert first.stdout.split() == second.stdout.split() == ["0"]
    assert report.policy.startswith("exit status")


def test_equivalent_commands_give_no_difference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sample.txt").write_text("b a\nc\n")
    report = divergent.check(["cmd:cat", "cmd:tee"], examples=["sample.txt"],
                             budget=Budget(seconds=20, executions=300))
    assert report.verdict is divergent.Verdict.NO_DIFFERENCE_FOUND and report.inputs > 20


def test_a_command_runs_from_the_directory_divergent_started_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "old_tool.py").write_text("import sys\nprint(sum(int(t) for t in sys.stdin.read().split()))\n")
    (tmp_path / "new_tool.py").write_text(
        "import sys\nnumbers = [int(t) for t in sys.stdin.read().split()]\nprint(sum(n for n in numbers if n > 0))\n")
    monkeypatch.chdir(tmp_path)
    item = TextInput("4 -1\n")
    outcomes = outcomes_on(["cmd:python3 old_tool.py", "cmd:python3 new_tool.py"], item)
    assert [o.stdout for o in outcomes] == ["3\n", "4\n"]
    assert CommandComparison().observe(item, outcomes).divergent


def test_the_cli_reports_commands_and_their_reproducing_test_fails_until_they_agree(tmp_path: Path) -> None:
    (tmp_path / "sample.txt").write_text("3\n10\n9\n")
    (tmp_path / "tool.sh").write_text("sort\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    test = tmp_path / "tests" / "test_sorting.py"
    test.parent.mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "divergent", "check", "cmd:sort -n", "cmd:sh tool.sh", "--example", "sample.txt",
         "--budget", "20", "--executions", "400", "--json", "--emit-test", str(test)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=180,
    )
    assert run.returncode == 1, run.stderr
    document = json.loads(run.stdout)
    assert document["kind"] == "command" and document["implementations"] == ["cmd:sort -n", "cmd:sh tool.sh"]
    assert document["counterexample"]["reproduce"][1].startswith(f"(cd {tmp_path} && /bin/sh -c 'sh tool.sh') < ")
    assert "monkeypatch.chdir(HERE / '..')" in test.read_text()

    def pytest_on_test() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                              cwd="/", capture_output=True, text=True, env=env, timeout=300)

    failing = pytest_on_test()
    assert failing.returncode == 1, failing.stdout + failing.stderr
    (tmp_path / "tool.sh").write_text("sort -n\n")
    passing = pytest_on_test()
    assert passing.returncode == 0, passing.stdout + passing.stderr
