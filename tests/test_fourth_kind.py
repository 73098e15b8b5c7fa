"""A fourth kind of program, defined here and nowhere else (issue 33's acceptance): a JSON function,
a command that reads a call's arguments as a JSON array on stdin and prints the result as JSON.

The kind is this module's :data:`JSON_FUNCTIONS` and one registry line (added by the test). It
passes ``check``, ``cluster``, ``--memory``, ``--json`` and ``--html`` with no edit to the search, the
engines, the reports or the command line: the kind says which option groups it reads, how
``--memory`` reaches its runs (the shared default: ``Limits.memory_mb``), its engines (those of
calls), its runner and its reproduction.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from divergent.cli import app
from divergent.kinds import registry
from divergent.kinds.base import Subjects, records_of
from divergent.kinds.calls import CallKind, CallSubjects
from divergent.kinds.functions import FUNCTION_ENGINES
from divergent.kinds.options import SearchOptions
from divergent.programs import Parameter, Program, Signature, with_distinct_labels
from divergent.records import AnyInput, Counterexample, ExceptionInfo, Outcome, OutcomeKind, TextInput
from divergent.sandbox.builds import BuiltProgram
from divergent.sandbox.isolation import choose_level
from divergent.sandbox.launch import ProgramLimits
from divergent.values import encode

PREFIX = "jsonfn:"
SHELL = "/bin/sh"


@dataclass(frozen=True)
class JsonFunction:
    """A command taking one call's arguments as JSON on stdin (its program record)."""

    kind: ClassVar[str] = "json-function"

    label: str
    line: str
    origin: str = ""

    @property
    def source(self) -> str:
        return self.line

    @property
    def path(self) -> str | None:
        return None

    @property
    def language(self) -> str:
        return "sh"

    @property
    def display_name(self) -> str:
        return "f"


def _outcome(outcome: Outcome) -> Outcome:
    """A run as a call's outcome: the JSON it printed is what it returned; a failed run raised."""
    if outcome.kind is OutcomeKind.OK:
        try:
            return Outcome(kind=OutcomeKind.RETURNED, value=encode(json.loads(outcome.stdout)), seconds=outcome.seconds)
        except ValueError:
            return Outcome(kind=OutcomeKind.RAISED, exception=ExceptionInfo("NotJSON", outcome.stdout[:80]),
                           seconds=outcome.seconds)
    if outcome.kind is OutcomeKind.RUNTIME_ERROR:
        last = (outcome.stderr.strip().splitlines() or [""])[-1]
        return Outcome(kind=OutcomeKind.RAISED, exception=ExceptionInfo(f"exit {outcome.exit_code}", last[:200]),
                       seconds=outcome.seconds)
    if outcome.kind is OutcomeKind.TIMEOUT:
        return outcome
    return Outcome(kind=OutcomeKind.CRASH, detail=f"{outcome.kind.value} {outcome.detail}".strip(),
                   seconds=outcome.seconds)


class JsonRunner:
    """The commands, run by the sandbox's process runner: the arguments go in as JSON text."""

    def __init__(self, programs: Sequence[JsonFunction], options: SearchOptions) -> None:
        from divergent.sandbox.process_runner import ProcessRunner

        limits = ProgramLimits(time_limit=options.limits.timeout, memory_mb=options.limits.memory_mb)
        self.memory_mb = limits.memory_mb
        built = [BuiltProgram(program=p, mode="exec", argv=(SHELL, "-c", p.line)) for p in programs]
        self._runner = ProcessRunner(programs, limits=limits, isolation=choose_level(options.isolation), built=built)
        self.level = self._runner.level
        self.runtime_constants: list[Any] = []
        self.notes = self._runner.notes
        OPENED.append(self)

    @property
    def executions(self) -> int:
        return self._runner.executions

    def run(self, inputs: Sequence[AnyInput], *, deadline: float | None = None,
            timeout: float | None = None) -> list[tuple[Outcome, ...] | None]:
        texts = [TextInput(json.dumps([*item.args])) for item in inputs]  # type: ignore[union-attr]
        ran = self._runner.run(texts, deadline=deadline)
        return [None if outcomes is None else tuple(_outcome(o) for o in outcomes) for outcomes in ran]

    def close(self) -> None:
        self._runner.close()


#: the runners the kind opened (the test reads the limits they ran under)
OPENED: list[JsonRunner] = []


class JsonSubjects(CallSubjects):
    adaptive_limits = False  # each run's limit is fixed when the runner starts

    def gather_seeds(self) -> None:
        """Calls from the files of ``--seeds``."""
        from divergent.load import seeds_from_file

        self.seeds = tuple(seed for path in self.options.seeds for seed in seeds_from_file(path, self.signature))


class JsonFunctions(CallKind):
    name = "json-function"
    noun = "JSON function"
    engines: ClassVar[dict[str, str]] = {name: FUNCTION_ENGINES[name] for name in ("seeds", "mutation", "hypothesis")}
    #: every call takes one integer (a real kind would read it from the spec)
    signature = Signature(parameters=(Parameter("n", annotation_source="int", annotation=int),))

    def claims(self, spec: object) -> bool:
        return isinstance(spec, JsonFunction) or (isinstance(spec, str) and spec.startswith(PREFIX))

    def load(self, specs: Sequence[object], options: SearchOptions) -> tuple[Program, ...]:
        found = [spec if isinstance(spec, JsonFunction) else
                 JsonFunction(label=str(spec), line=str(spec)[len(PREFIX):], origin=str(spec)) for spec in specs]
        return tuple(with_distinct_labels(found))

    def set_up(self, programs: Sequence[Program], options: SearchOptions) -> Subjects:
        return JsonSubjects(self, programs, options, comparison=options.comparison, signature=self.signature)

    def open_runner(self, programs: Sequence[Program], options: SearchOptions) -> JsonRunner:
        return JsonRunner(records_of(programs, JsonFunction, self.noun), options)

    def reproduction(self, cx: Counterexample, programs: Sequence[Program], options: SearchOptions, *,
                     test_dir: Path) -> str:
        lines = [line for line in (p.line for p in records_of(programs, JsonFunction, self.noun))]
        stdin = json.dumps([*cx.input.args])  # type: ignore[union-attr]
        return textwrap.dedent(f"""\
            import subprocess

            def test_the_json_functions_agree():
                outputs = [subprocess.run(["{SHELL}", "-c", line], input={stdin!r}, capture_output=True,
                                          text=True).stdout for line in {lines!r}]
                assert len(set(outputs)) == 1, outputs
            """)


JSON_FUNCTIONS = JsonFunctions()

runner = CliRunner()


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kind's one registry line."""
    if shutil.which("python3") is None:
        pytest.skip("python3 is not installed")
    monkeypatch.setitem(registry.KINDS, "json-function", f"{__name__}:JSON_FUNCTIONS")
    OPENED.clear()


def function(body: str) -> str:
    """A JSON function in Python: ``n`` is the call's argument, ``body`` computes ``result``."""
    return PREFIX + "python3 -c " + shlex.quote(f"import json, sys\nn = json.load(sys.stdin)[0]\n{body}\n"
                                                 "print(json.dumps(result))")


DOUBLE = function("result = 2 * n")
SUM = function("result = n + n")
BUGGY = function("result = 2 * n if n != 7 else 15")
HUNGRY = function("ballast = b'x' * (160 * 2 ** 20)\nresult = 2 * n")  # writes 160 MiB first


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args), env={**os.environ, "COLUMNS": "120"})


def test_a_fourth_kind_checks_and_finds_a_difference_with_json_and_html(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("f(7)\nf(3)\n")
    page = tmp_path / "report.html"
    result = invoke("check", DOUBLE, BUGGY, "--seeds", str(seeds), "--budget", "60", "--executions", "60",
                    "--json", "--html", str(page))
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "divergent" and data["counterexample"]["call"] == "f(7)"
    assert [o["value"] for o in data["counterexample"]["outcomes"]] == ["14", "15"]
    assert "Implementations differ" in page.read_text() and "f(7)" in page.read_text()
    # the terminal report is the one frame every kind has, with the kind's rows
    shown = invoke("check", DOUBLE, BUGGY, "--seeds", str(seeds), "--budget", "60", "--executions", "60")
    assert shown.exit_code == 1 and "Implementations differ" in shown.stdout and "comparison:" in shown.stdout


def test_a_fourth_kind_finds_no_difference_between_equal_functions() -> None:
    result = invoke("check", DOUBLE, SUM, "--budget", "60", "--executions", "40", "--min-inputs", "10", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verdict"] == "no-difference-found"


def test_a_fourth_kind_clusters(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("f(7)\nf(2)\n")
    result = invoke("cluster", DOUBLE, SUM, BUGGY, "--budget", "60", "--executions", "120", "--min-inputs", "10",
                    "--seeds", str(seeds), "--json")
    assert result.exit_code in (0, 1), result.output
    classes = sorted((c["members"] for c in json.loads(result.stdout)["classes"]), key=len)
    assert classes == [[BUGGY], [DOUBLE, SUM]]


def test_memory_reaches_a_kind_no_option_group_names() -> None:
    # 160 MiB fit the default (a Python worker's 2048 MiB) and not 64 MiB: --memory reached the runs
    roomy = invoke("check", HUNGRY, DOUBLE, "--budget", "60", "--executions", "16", "--min-inputs", "4", "--json")
    assert roomy.exit_code == 0, roomy.output
    assert OPENED and all(opened.memory_mb == SearchOptions().limits.memory_mb for opened in OPENED)
    OPENED.clear()
    tight = invoke("check", HUNGRY, DOUBLE, "--memory", "64", "--budget", "60", "--executions", "80", "--json")
    assert tight.exit_code == 1, tight.output
    assert OPENED and all(opened.memory_mb == 64 for opened in OPENED)
    hungry = json.loads(tight.stdout)["counterexample"]["outcomes"][0]
    assert hungry["kind"] in ("raised", "crash"), hungry


def test_flags_the_kind_does_not_read_are_input_errors_naming_the_kinds_that_do() -> None:
    refused = invoke("check", DOUBLE, SUM, "--validator", "v.py", "--budget", "5")
    assert refused.exit_code == 2
    assert "--validator is for whole programs and commands; these are JSON functions" in refused.stderr
    refused = invoke("check", DOUBLE, SUM, "--require", "n > 0", "--budget", "5")
    assert refused.exit_code == 2 and "--require is for Python functions; these are JSON functions" in refused.stderr
    brute = invoke("check", DOUBLE, "--brute-force", "--budget", "5")
    assert brute.exit_code == 2 and "--brute-force is for Python functions; these are JSON functions" in brute.stderr


