"""What a new user trips on, held down (issue 36), one section per item: outputs that cannot be written
lose nothing; the JSON contract holds on bad flags; stored runs end in a true state and are shown
whole; the emitted whole-program test says what it needs; commands and help can be copied at 80
columns; the smaller ones; the reports; start-up and paths; the project's config file."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from divergent import __version__
from divergent.cli import app
from divergent.cli.outputs import Delivery
from divergent.kinds.reports import plain_report, render_report
from divergent.records import TextInput
from divergent.report.diff import Span, output_diff
from divergent.report.pages import check_page, cluster_page
from divergent.report.presentation import ReportExtras
from divergent.report.text import found_text
from divergent.store import RUN_KINDS, Store
from report_examples import chromium, wider_than_the_page
from test_docs import COMMANDS
from test_report_cli import a_report

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
FAST = ("--budget", "8", "--engines", "seeds,mutation")
#: two functions that differ on x == 7
SAME, OFF_BY_ONE = "def f(x: int) -> int:\n    return x\n", "def f(x: int) -> int:\n    return x + (x == 7)\n"


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "a.py").write_text(SAME)
    (tmp_path / "b.py").write_text(OFF_BY_ONE)
    return str(tmp_path / "a.py"), str(tmp_path / "b.py")


def divergent(*args: str, home: Path, cwd: Path = ROOT, extra_env: dict[str, str] | None = None,
              **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(home), "DIVERGENT_NO_CONFIG": "1",
           **(extra_env or {})}
    return subprocess.run([sys.executable, "-m", "divergent", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=300, **kwargs)  # type: ignore[call-overload]


def one_json_error(result: object) -> dict:
    """The one JSON object a failed --json command printed on stdout (the contract)."""
    document = json.loads(result.stdout)  # type: ignore[attr-defined]
    assert document["verdict"] == "error" and document["counterexample"] is None
    return document


# -- 1. an output that cannot be written loses nothing --------------------------------------------


def test_outputs_that_cannot_be_written_are_refused_before_the_search(pair: tuple[str, str], tmp_path: Path) -> None:
    (tmp_path / "a-directory").mkdir()
    for option, path in (("--json-file", "/dev/full"), ("--html", "/proc/r.html"), ("--emit-test", "/sys/t.py"),
                         ("--html", str(tmp_path / "a-directory")), ("--html", str(tmp_path / "no" / "r.html"))):
        result = runner.invoke(app, ["check", *pair, *FAST, "--json", option, path])
        assert result.exit_code == 2, (option, path, result.output)
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"divergent: error: {option} {path}: "), first
        assert one_json_error(result)["error"] == first.removeprefix("divergent: error: ")
    # /dev/null takes anything: it is no error
    assert runner.invoke(app, ["check", *pair, *FAST, "-q", "--html", "/dev/null"]).exit_code == 1


def test_json_to_a_full_stdout_is_an_input_error_not_a_traceback(pair: tuple[str, str], tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(tmp_path), "DIVERGENT_NO_CONFIG": "1"}
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "divergent", "check", *pair, *FAST, "--json"], stdout=full,
                                stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    assert result.returncode == 2
    assert result.stderr.splitlines() == ["divergent: error: stdout cannot take the result: it is /dev/full, which "
                                          "takes no data"]


def test_a_write_that_fails_after_the_search_keeps_the_result_and_the_verdict(
        pair: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    html = tmp_path / "r.html"
    written = Path.write_text

    def disk_full(path: Path, *args: object, **kwargs: object) -> int:
        if path == html:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return written(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", disk_full)
    result = runner.invoke(app, ["check", *pair, *FAST, "-q", "--html", str(html), "--emit-test",
                                 str(tmp_path / "test_f.py")])
    assert result.exit_code == 1  # the verdict's, though a file could not be written
    assert "implementations differ on f(7)" in result.stdout
    assert f"divergent: error: could not write --html {html} (No space left on device)" in result.stderr
    assert (tmp_path / "test_f.py").is_file()  # the other outputs were made


def test_a_stdout_that_refuses_the_result_gets_it_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    delivery = Delivery()

    def refused() -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    assert not delivery.to_stdout(refused)
    delivery.finish(lambda: "implementations differ on f(7)")
    err = capsys.readouterr().err.splitlines()
    assert err == ["implementations differ on f(7)",
                   "divergent: error: could not write the result to stdout (No space left on device)"]


# -- 2. the JSON contract on bad flags ------------------------------------------------------------


@pytest.mark.parametrize(("arguments", "reason"), [
    (["--budget", "abc"], "--budget 'abc' is not a number"),
    (["--bogus-flag"], "no such option --bogus-flag"),
    (["--budgte", "3"], "no such option --budgte (did you mean --budget?)"),
    (["--timeout", "0"], "--timeout 0.0 is out of range: at least 0.001"),
    (["--budget"], "--budget needs a value"),
])
def test_parse_errors_keep_the_json_contract(pair: tuple[str, str], arguments: list[str], reason: str) -> None:
    result = runner.invoke(app, ["check", *pair, "--json", *arguments])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == f"divergent: error: {reason}"
    assert one_json_error(result)["error"] == reason
    for jargon in ("valid float range", "Possible options", "Usage:", "Try '"):
        assert jargon not in result.output, jargon


def test_parse_errors_of_commands_and_groups_read_alike(tmp_path: Path) -> None:
    unknown = runner.invoke(app, ["chek", "a.py"])
    assert unknown.exit_code == 2 and unknown.stderr.startswith("divergent: error: no such command 'chek' "
                                                                "(did you mean check?)")
    jobs = runner.invoke(app, ["bench", "refute", "run", "--json", "--jobs", "0"])
    assert jobs.exit_code == 2 and one_json_error(jobs)["error"] == "--jobs 0 is out of range: at least 1"
    missing = runner.invoke(app, ["check", "--json"])
    assert missing.exit_code == 2 and one_json_error(missing)["error"] == "missing IMPL..."
    # the program itself (not only a test's runner): the same words, exit 2
    program = divergent("check", "a.py", "b.py", "--json", "--budget", "abc", home=tmp_path)
    assert program.returncode == 2 and json.loads(program.stdout)["error"] == "--budget 'abc' is not a number"


# -- 3. stored runs ------------------------------------------------------------------------------


def test_a_failed_incoherence_run_is_stored_failed(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"task_id": "T/0", "entry_point": "double", "tests": ["assert double(3) == 6"],
                                 "ground_truth": "def double(x: int) -> int:\n    return 2 * x\n"}) + "\n")
    # replaying from an empty cache: the sampling fails at its first call, after the run was opened
    result = divergent("incoherence", "run", "--tasks", str(tasks), "--model", "m", "--replay", "-m", "2", "-n", "5",
                       "-q", home=tmp_path, extra_env={"OPENAI_API_KEY": "sk-test"})
    assert result.returncode == 2, result.stderr
    with Store(tmp_path / "divergent.sqlite3") as store:
        (run,) = store.list_runs("incoherence")
        assert run.status == "failed"


def test_report_checks_its_kind_and_never_creates_a_store(tmp_path: Path) -> None:
    bogus = runner.invoke(app, ["report", "--kind", "bogus", "--db", str(tmp_path / "x.sqlite3")])
    assert bogus.exit_code == 2 and "--kind 'bogus': no such kind of run; the kinds: " in bogus.stderr
    assert all(kind in bogus.stderr for kind in RUN_KINDS)
    typo = tmp_path / "typo.sqlite3"
    for arguments in (["report", "--db", str(typo)], ["report", "abc", "--db", str(typo)],
                      ["incoherence", "list", "--db", str(typo)], ["incoherence", "show", "abc", "--db", str(typo)]):
        result = runner.invoke(app, arguments)
        assert result.exit_code == 2 and f"no store at {typo}" in result.stderr, arguments
    assert not typo.exists()
    fresh = runner.invoke(app, ["report"], env={"DIVERGENT_HOME": str(tmp_path / "home")})
    assert fresh.exit_code == 0 and "no stored runs yet" in fresh.stdout
    assert not (tmp_path / "home").exists()


def test_a_quiet_stored_check_names_its_run_and_report_shows_the_counterexample(pair: tuple[str, str],
                                                                               tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite3"
    result = runner.invoke(app, ["check", *pair, *FAST, "-q", "--db", str(db)])
    assert result.exit_code == 1
    run_id = re.search(r"report stored as run (\w+)", result.stderr)
    assert run_id, result.stderr
    shown = runner.invoke(app, ["report", run_id.group(1), "--db", str(db)])
    assert shown.exit_code == 0
    assert "on f(7)" in shown.stdout and "returned 7" in shown.stdout and "returned 8" in shown.stdout


# -- 4. the emitted whole-program test says it needs divergent -------------------------------------


def test_the_whole_program_test_says_it_needs_divergent(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print(int(input()) * 2)\n")
    (tmp_path / "b.py").write_text("x = int(input())\nprint(x * 2 if x != 7 else 15)\n")
    (tmp_path / "seed.txt").write_text("3\n")
    emitted = tmp_path / "test_ab.py"
    result = runner.invoke(app, ["check", str(tmp_path / "a.py"), str(tmp_path / "b.py"), "--stdin", "--seeds",
                                 str(tmp_path / "seed.txt"), "--budget", "20", "--min-inputs", "0", "-q",
                                 "--emit-test", str(emitted)])
    assert result.exit_code == 1, result.output
    text = emitted.read_text()
    assert "run pytest with the Python that has\n# divergent installed" in text
    # where divergent cannot be imported, the module says so (not a bare ModuleNotFoundError)
    script = ("import runpy, sys\nsys.modules['divergent'] = None\n"
              f"runpy.run_path({str(emitted)!r})\n")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "ImportError: this test runs the programs through divergent's sandbox: run pytest with the Python " \
           "that has divergent installed" in ran.stderr
    assert "pytest of the Python where divergent is installed" in (ROOT / "README.md").read_text()


# -- 5. commands and help to copy ------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=lambda path: " ".join(path) or "divergent")
def test_help_at_80_columns_cuts_no_flag_and_no_default(path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = runner.invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    assert all(len(line) <= 80 for line in result.output.splitlines())
    whole = re.sub(r"[\s│╭╮╰╯─]", "", result.output)  # what wraps is joined again: only a cut loses text
    command = COMMANDS[path]
    ctx = command.make_context(path[-1] if path else "divergent", [], resilient_parsing=True)  # type: ignore[attr-defined]
    for param in command.get_params(ctx):  # type: ignore[attr-defined]
        if getattr(param, "hidden", False) or param.param_type_name != "option":
            continue
        for name in (*param.opts, *param.secondary_opts):
            assert name in whole, name
        record = param.get_help_record(ctx)
        default = re.search(r"\[default: ([^;\]]+)", record[1] if record else "")
        if default:
            assert f"default:{default.group(1).replace(' ', '')}" in whole, (param.name, default.group(1))
    if command.help:  # type: ignore[attr-defined]
        # a paragraph of the command's help is one text (no line break where its source had one)
        first = " ".join(command.help.split("\n\n")[0].split())  # type: ignore[attr-defined]
        assert re.sub(r"\s", "", first) in whole


def test_help_keeps_no_line_break_of_the_docstring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    shown = runner.invoke(app, ["sandbox", "--help"]).output
    assert ("Show the isolation levels available here (the strongest is used by default), what caps the "
            "processes and filters the system calls of a sandbox, and what removes what a run leaves behind.") in shown


def test_the_commands_that_reproduce_a_run_follow_the_box_one_per_line() -> None:
    report, _ = a_report()
    cx = report.counterexample
    assert cx is not None
    programs = dataclasses.replace(
        report, implementations=("/home/someone/work/contest/solutions/sum.py", "/home/someone/work/sum_wrong.cpp"),
        counterexample=dataclasses.replace(cx, input=TextInput("1\n2147483648\n"), original=TextInput("3\n1 2 3\n"),
                                           shrink_steps=()), kind="stdin-program")
    commands = ["python3 /home/someone/work/contest/solutions/sum.py < /root/.cache/divergent/inputs/9df4d966d46285a7.txt",
                "/root/.cache/divergent/builds/5c8338a366e3285e3e5049e012e6a151/prog < "
                "/root/.cache/divergent/inputs/9df4d966d46285a7.txt"]
    for width in (80, 120):
        console = Console(width=width, record=True, color_system=None)
        render_report(programs, console, extras=ReportExtras(reproduce=tuple(commands)))
        lines = console.export_text().splitlines()
        for command in commands:
            assert command in lines, (width, command)  # a line of its own, whole, outside the box
        box_end = max(i for i, line in enumerate(lines) if line.startswith("╰"))
        assert all(lines.index(command) > box_end for command in commands)


# -- 6. the smaller ones --------------------------------------------------------------------------


def test_two_scripts_without_stdin_are_told_to_add_it(tmp_path: Path) -> None:
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("n = int(input())\nprint(n)\n")
    result = runner.invoke(app, ["check", str(tmp_path / "a.py"), str(tmp_path / "b.py")])
    assert result.exit_code == 2
    assert "defines no top-level function; if it is a script reading stdin, add --stdin" in result.stderr


def test_cetbench_generate_refuses_tasks_without_samples(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"task_id": "T/0", "entry_point": "f", "prompt": "def f(x):\n",
                                 "tests": ["assert f(1) == 1"], "ground_truth": "def f(x):\n    return x\n"}) + "\n")
    out = tmp_path / "pairs.jsonl"
    result = runner.invoke(app, ["bench", "cetbench", "generate", "--tasks", str(tasks), "--out", str(out),
                                 "--db", str(tmp_path / "s.sqlite3")])
    assert result.exit_code == 2 and "no recorded samples for the tasks of" in result.stderr
    assert not out.exists()


def test_h_V_and_v(pair: tuple[str, str]) -> None:
    assert runner.invoke(app, ["-V"]).output.strip() == f"divergent {__version__}"
    assert "Usage: divergent check" in runner.invoke(app, ["check", "-h"]).output
    assert "-V prints the version" in runner.invoke(app, ["-v"]).stderr
    verbose = runner.invoke(app, ["check", *pair, *FAST, "-v", "--seed", "3"])
    assert verbose.exit_code == 1
    assert re.search(r"divergent: +[\d.]+ s  searching: ", verbose.stderr)  # a line per phase
    assert "shrinking (" in verbose.stdout or "f(7)" in verbose.stdout
    assert "--seed    3  (flag)" in verbose.stdout or re.search(r"--seed +3 +\(flag\)", verbose.stdout)
    both = runner.invoke(app, ["check", *pair, "-v", "-q"])
    assert both.exit_code == 2 and "--quiet and --verbose: choose one" in both.stderr


def test_check_json_carries_its_format(pair: tuple[str, str]) -> None:
    result = runner.invoke(app, ["check", *pair, *FAST, "--json"])
    document = json.loads(result.stdout)
    assert document["format"] == 1 and document["divergent_version"] == __version__


def test_the_time_of_an_n_program_check_says_what_it_is() -> None:
    report, _ = a_report()
    assert found_text(report) == "found by mutation in 16.0 s, 246,918 executions"
    three = dataclasses.replace(report, implementations=(*report.implementations, "examples/third.py"))
    assert found_text(three) == "found by mutation at 1.0 s; 16.0 s in all, refining the classes; 246,918 executions"


def test_quiet_text_counts_with_separators_and_cluster_quiet_prints_no_box(tmp_path: Path) -> None:
    report, _ = a_report()
    assert "246,918 executions" in plain_report(report)
    for i, body in enumerate(["return x * 2", "return x + x", "return x * 3"]):
        (tmp_path / f"s{i}.py").write_text(f"def f(x: int) -> int:\n    {body}\n")
    result = runner.invoke(app, ["cluster", *(str(tmp_path / f"s{i}.py") for i in range(3)), *FAST, "-q"])
    assert result.exit_code == 0
    assert not re.search(r"[│┃┏━╭]", result.stdout)
    assert "2 behaviour classes among 3 implementations" in result.stdout and "pick: " in result.stdout


def test_selfconsistency_limit_counts_tasks_with_samples(tmp_path: Path) -> None:
    from divergent.bench.benchmark import Workbench
    from divergent.bench.selfconsistency.run import SelfConsistencyConfig, run_selfconsistency
    from divergent.bench.selfconsistency.solve import ClusterSettings

    tasks = tmp_path / "tasks.jsonl"
    rows = [{"task_id": f"T/{i}", "entry_point": "f", "tests": ["assert f(1) == 2"],
             "ground_truth": "def f(x: int) -> int:\n    return 2 * x\n"} for i in range(3)]
    tasks.write_text("".join(json.dumps(row) + "\n" for row in rows))
    for task in ("T_1", "T_2"):  # the first task has no samples
        folder = tmp_path / "samples" / "toy@0.5" / task
        folder.mkdir(parents=True)
        for i, body in enumerate(["2 * x", "x + x"]):
            (folder / f"{i}.py").write_text(f"def f(x):\n    return {body}\n")
    config = SelfConsistencyConfig(tasks=str(tasks), samples=str(tmp_path / "samples"), m=2, limit_tasks=1,
                                   settings=ClusterSettings(budget=2, engines=("seeds", "mutation")))
    with Store(tmp_path / "s.sqlite3") as store:
        record = run_selfconsistency(config, Workbench(store)).run
        assert [unit.key for unit in store.units(record.id)] == ["toy@0.5/T/1"]


def test_replay_misses_are_said_as_the_docs_say(pair: tuple[str, str], tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", *pair, *FAST, "--model", "m", "--replay", "-q"],
                           env={"DIVERGENT_HOME": str(tmp_path), "OPENAI_API_KEY": "sk-test"})
    assert result.exit_code == 1  # the other engines' difference stands
    assert "replay mode: the response cache has no answer" in result.stdout
    documented = (ROOT / "docs" / "cli.md").read_text()
    assert "a miss is an error" not in documented and "a call it does not hold stops the model's part" in documented


def test_a_file_the_sandbox_cannot_read_is_said_plainly(tmp_path: Path) -> None:
    from divergent.sandbox.pool import unreadable_in_sandbox

    raw = "PermissionError: [Errno 13] Permission denied: '/x/a.py' (at <frozen importlib._bootstrap_external>:1130)"
    said = unreadable_in_sandbox(raw)
    assert said.startswith("the sandbox cannot read the file") and "chmod o+r" in said and "<frozen" not in said
    assert unreadable_in_sandbox("SyntaxError: bad") == "SyntaxError: bad"
    if os.geteuid() != 0:
        return  # only root can make a file it reads and the sandbox's user cannot
    private = tmp_path / "private"
    private.mkdir(mode=0o755)
    for name, source in (("a.py", SAME), ("b.py", OFF_BY_ONE)):
        (private / name).write_text(source)
        os.chown(private / name, 1000, 1000)
        (private / name).chmod(0o600)
    result = runner.invoke(app, ["check", str(private / "a.py"), str(private / "b.py"), *FAST])
    if result.exit_code == 2:  # (with the rlimits level nothing is dropped: the check runs)
        assert "the sandbox cannot read the file" in result.stderr and "<frozen" not in result.stderr


# -- 7. the reports ----------------------------------------------------------------------------------


def _program_document() -> dict:
    return {
        "verdict": "divergent", "kind": "stdin-program", "implementations": ["/x/sum.py", "/x/sum_wrong.cpp"],
        "counterexample": {"call": "stdin '1\\n2147483648\\n'", "stdin": "1\n2147483648\n",
                           "original_stdin": "3\n1 2 3\n", "original_call": "stdin '3\\n1 2 3\\n'",
                           "shrink_steps": ["2\n1 2147483648\n", "1\n2147483648\n"], "engine": "mutation",
                           "outcomes": [{"impl": "/x/sum.py", "kind": "ok", "value": "'2147483648\\n'",
                                         "stdout": "2147483648\n", "class": 1},
                                        {"impl": "/x/sum_wrong.cpp", "kind": "ok", "value": "'-2147483648\\n'",
                                         "stdout": "-2147483648\n", "class": 2}]},
        "classes": [["/x/sum.py"], ["/x/sum_wrong.cpp"]], "engines": [], "timeline": [],
    }


def test_a_whole_program_report_is_titled_by_its_programs_and_keeps_its_lines() -> None:
    from divergent.kinds.reports import report_json
    from divergent.records import ExitReason, Report, Verdict

    def titled(kind: str, labels: tuple[str, ...]) -> str:
        report = Report(verdict=Verdict.NO_DIFFERENCE_FOUND, implementations=labels, counterexample=None,
                        classes=(tuple(range(len(labels))),), splits=(), seconds=1.0, executions=200, inputs=100,
                        engines=(), exit_reason=ExitReason.BUDGET_SECONDS, isolation="bubblewrap", policy="tokens",
                        seed=0, kind=kind, min_inputs=100)
        return check_page(report_json(report)).title

    # the kind writes the title: programs by their files, commands by their text, functions by their count
    assert titled("stdin-program", ("/x/sum.py", "/x/sum_wrong.cpp")) == "sum.py vs sum_wrong.cpp"
    assert titled("stdin-program", ("a.py", "b.c", "c.cpp", "d.java")) == "a.py, b.c, c.cpp and 1 more: 4 programs compared"
    assert titled("command", ("cmd:sort -n", "cmd:sort")) == "cmd:sort -n vs cmd:sort"
    assert titled("python-function", ("old.py", "new.py")) == "2 implementations compared"
    page = check_page(_program_document() | {"title": "sum.py vs sum_wrong.cpp"})
    assert page.title == "sum.py vs sum_wrong.cpp"
    steps = next(block for section in page.sections if section.id == "shrinking" for block in section.blocks)
    assert steps.items[0] == "3⏎\n1 2 3⏎\n"  # type: ignore[attr-defined]
    assert steps.items[-1] == "1⏎\n2147483648⏎\n"  # type: ignore[attr-defined]
    functions, _ = a_report()

    assert check_page(report_json(functions)).title == "normalize: 2 implementations compared"


def test_numbers_are_diffed_as_numbers() -> None:
    assert output_diff("2147483648", "-2147483304992") == (Span("delete", "2147483648"),
                                                           Span("insert", "-2147483304992"))
    assert output_diff("x = [1, 2, 3]", "x = [1, 2, 4]")[-3:] == (Span("delete", "3"), Span("insert", "4"),
                                                                  Span("equal", "]"))
    assert output_diff("'hello'", "'hallo'") == (Span("equal", "'h"), Span("delete", "e"), Span("insert", "a"),
                                                 Span("equal", "llo'"))


@pytest.mark.skipif(chromium() is None, reason="no chromium on this machine (`make browser-tools` installs it)")
def test_the_cluster_page_fits_1200_pixels(tmp_path: Path) -> None:
    from divergent.report.html import render_html

    document = {
        "implementations": [f"sample_{i}.py" for i in range(5)], "classes": [
            {"size": 3, "members": ["sample_0.py", "sample_1.py", "sample_2.py"]},
            {"size": 1, "members": ["sample_3.py"]}, {"size": 1, "members": ["sample_4.py"]}],
        "pick": "sample_0.py", "splits": [], "timeline": [], "engines": [
            {"name": name, "inputs": 12_345, "rejected": 1_234, "executions": 61_725, "novel": 321, "behaviours": 400,
             "since_novel": 9_000, "longest_stale": 9_000, "longest_stale_seconds": 2.5, "restarts": 3,
             "divergences": 620, "seconds": 12.5, "stopped": stopped, "explored": explored}
            for name, stopped, explored in (
                ("seeds", "exhausted: all 6 seed inputs used (6 proposed, 0 not meeting the preconditions)", ""),
                ("mutation", "", ""),
                ("hypothesis", "failed: Hypothesis stopped: FailedHealthCheck(data_too_large_in_/tmp/pytest-of-root/"
                               "pytest-11/test_cluster_and_incoherence_w0/s0.py)", ""),
                ("symbolic", "unsupported: the symbolic runner cannot model list[dict[str, tuple[int, float]]]",
                 "CrossHair: 1,234 paths in 12.3 s, still exploring when the search ended"),
                ("llm", "failed: model gpt-4o-mini at http://localhost:8000/v1: cannot connect ([Errno 111] "
                        "Connection refused) (gave up after 6 attempts)", ""))],
    }
    page = tmp_path / "cluster.html"
    page.write_text(render_html(cluster_page(document)), encoding="utf-8")
    assert wider_than_the_page(page, 1200) == []


def test_the_readme_lists_each_document_once() -> None:
    listed = re.findall(r"^\* \[(docs/[\w.-]+)\]", (ROOT / "README.md").read_text(), re.MULTILINE)
    assert "docs/bench.md" in listed and len(listed) == len(set(listed))


# -- 8. start-up and paths -------------------------------------------------------------------------


def test_one_place_says_where_divergent_keeps_its_files(tmp_path: Path) -> None:
    from divergent import paths

    home = {"DIVERGENT_HOME": str(tmp_path / "h"), "XDG_CACHE_HOME": str(tmp_path / "c")}
    assert paths.cache_dir("builds", home) == tmp_path / "h" / "cache" / "builds"
    assert paths.cache_dir("inputs", {"XDG_CACHE_HOME": str(tmp_path / "c")}) == tmp_path / "c" / "divergent" / "inputs"
    assert paths.data_dir(home) == paths.config_dir(home) == tmp_path / "h"
    # nothing else reads the XDG variables or writes ~/.cache out
    written_out = [path for path in (ROOT / "src" / "divergent").rglob("*.py") if path.name != "paths.py"
                   and re.search(r"environ(\.get)?\(?\[?[\"']XDG_|[\"']\.cache[\"']", path.read_text())]
    assert written_out == []


def test_a_json_check_never_imports_rich(pair: tuple[str, str]) -> None:
    script = ("import sys\nfrom divergent.cli import register_commands\n"
              "from divergent.cli.application import run_app\nregister_commands(['check'])\n"
              f"code = run_app(['check', {pair[0]!r}, {pair[1]!r}, '--budget', '8', '--json'])\n"
              "print(code, sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.')), file=sys.stderr)\n")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DIVERGENT_NO_CONFIG": "1"})
    assert ran.stderr.strip().splitlines()[-1] == "1 []", ran.stderr
    assert "pydantic" not in (ROOT / "src" / "divergent" / "__main__.py").read_text()


# -- 9. the project's config file --------------------------------------------------------------------


def test_pyproject_sets_defaults_flags_win_and_json_says_where_each_came_from(
        pair: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.divergent]\nbudget = 8\nseed = 5\n'
                                            'engines = "seeds,mutation"\noutput = "float"\n\n'
                                            "[tool.divergent.check]\nseed = 6\n")
    monkeypatch.chdir(project / "sub")  # found by walking up, as pytest and ruff find theirs
    monkeypatch.delenv("DIVERGENT_NO_CONFIG", raising=False)
    result = runner.invoke(app, ["check", *pair, "--json", "--timeout", "1.5"])
    assert result.exit_code == 1, result.output  # output = "float" is for programs: not an error for functions
    document = json.loads(result.stdout)
    settings = document["settings"]
    where = str(project / "pyproject.toml")
    assert settings["budget"] == {"value": 8.0, "from": where, "key": "[tool.divergent] budget"}
    assert settings["seed"] == {"value": 6, "from": where, "key": "[tool.divergent.check] seed"}
    assert document["seed"] == 6
    assert settings["timeout"] == {"value": 1.5, "from": "flag"}
    assert settings["rel-tol"]["from"] == "default"
    flag_wins = json.loads(runner.invoke(app, ["check", *pair, "--json", "--seed", "2"]).stdout)
    assert flag_wins["seed"] == 2 and flag_wins["settings"]["seed"]["from"] == "flag"


@pytest.mark.parametrize(("table", "said"), [
    ("bugdet = 3", "[tool.divergent] bugdet: not a setting divergent reads"),
    ('budget = "abc"', "[tool.divergent] budget = 'abc': 'abc' is not a number"),
    ("shrink = 1", "[tool.divergent] shrink = 1: expected true or false"),
    ('model = "gpt-4o"', "the model's settings go in config.toml's [llm] table"),
    ('isolation = "bogus"', "--isolation was set by "),
])
def test_a_bad_config_is_an_input_error_naming_the_file_and_key(
        pair: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, said: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.divergent]\n{table}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DIVERGENT_NO_CONFIG", raising=False)
    result = runner.invoke(app, ["check", *pair, *FAST, "--json"])
    assert result.exit_code == 2
    error = one_json_error(result)
    assert str(tmp_path / "pyproject.toml") in result.stderr and said in result.stderr
    assert error["error"] in result.stderr
