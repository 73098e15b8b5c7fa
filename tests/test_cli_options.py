"""The searching commands' options as groups: each declares its flags (under its heading in --help)
and builds its record; a kind's own group is refused for another kind; one option per concept for
every kind (older spellings hidden, still read, a warning on a terminal); compiler flags added to the
defaults; every program that does not build shown with its compiler's output; a timeout that says
which limit stopped it; one JSON shape on every command."""

from __future__ import annotations

import json
import sys
import textwrap
import typing
from dataclasses import fields
from pathlib import Path

import pytest
import typer
from typer.core import TyperGroup
from typer.models import OptionInfo
from typer.testing import CliRunner

from conftest import need_tool
from divergent.cli import app
from divergent.cli.application import option_names
from divergent.cli.function_group import FunctionGroup
from divergent.cli.llm_options import ModelGroup
from divergent.cli.outputs import OutputGroup
from divergent.cli.program_group import ProgramGroup
from divergent.cli.search_groups import ComparisonGroup, LimitsGroup, SearchGroup
from divergent.cli.search_options import SearchFlags
from divergent.errors import InvalidArgument
from divergent.kinds.options import SearchOptions
from divergent.kinds.registry import all_kinds, kind_named
from divergent.programs import BuildOptions
from divergent.records import OutcomeKind
from divergent.sandbox.launch import ProgramLimits, ProgramRun, timeout_detail
from divergent.text_comparison import OutputComparison

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
OLDER = ("--example", "--inputs", "--time-limit", "--memory-limit", "--float-tol", "--std")


def flags(**groups: object) -> SearchFlags:
    """The searching commands' groups, with their defaults but for ``groups``."""
    defaults = {"search": SearchGroup(), "comparison": ComparisonGroup(), "limits": LimitsGroup(),
                "functions": FunctionGroup(), "programs": ProgramGroup(), "model": ModelGroup(),
                "outputs": OutputGroup()}
    return SearchFlags(**{**defaults, **groups})  # type: ignore[arg-type]


def help_text(*command: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", "200")
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


# -- the groups ----------------------------------------------------------------------------------


def test_each_group_shows_its_flags_under_its_own_heading(monkeypatch: pytest.MonkeyPatch) -> None:
    text = help_text("check", monkeypatch=monkeypatch)
    headings = [group.panel for group in flags().groups()]
    positions = [text.index(f"─ {heading} ") for heading in headings]
    assert positions == sorted(positions), headings
    for group, start, end in zip(flags().groups(), positions, [*positions[1:], len(text)], strict=True):
        section = text[start:end]
        hints = typing.get_type_hints(type(group), include_extras=True)
        for field in fields(group):  # type: ignore[arg-type]
            info = next(extra for extra in hints[field.name].__metadata__ if isinstance(extra, OptionInfo))
            if not info.hidden:
                assert option_names(info)[0] in section, (group.panel, field.name)
    # the implementations argument names every form a spec takes, for every kind, on both commands
    for command_text in (text, help_text("cluster", monkeypatch=monkeypatch)):
        for form in ("file.py", "module:function", "REV:", "file.c", ".cpp", ".java", "--stdin", "exec:PATH",
                     "cmd:COMMAND"):
            assert form in command_text, form


def test_every_option_of_the_searching_commands_says_what_it_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    for command in ("check", "cluster"):
        text = help_text(command, monkeypatch=monkeypatch)
        options = text[text.index("─ Options "):]  # past the arguments: every option has a metavar or none
        assert not re.findall(r"<[a-z][^>]*>", options), command


def test_a_kinds_own_group_is_refused_for_another_kind(tmp_path: Path) -> None:
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("def f(n: int) -> int:\n    return n\n")
    a, b = str(tmp_path / "a.py"), str(tmp_path / "b.py")
    functions = runner.invoke(app, ["check", a, b, "--validator", "v.py", "--output", "exact", "--budget", "5"])
    assert functions.exit_code == 2
    assert ("--validator, --output are for whole programs and commands; these are Python functions "
            "(add --stdin to run .py files as scripts)") in functions.stderr
    programs = runner.invoke(app, ["check", a, b, "--stdin", "--require", "n > 0", "--budget", "5", "--json"])
    assert programs.exit_code == 2
    assert "--require is for Python functions; these are whole programs" in programs.stderr
    assert json.loads(programs.stdout)["verdict"] == "error"


def test_a_shared_flag_is_read_the_way_each_kind_means_it() -> None:
    given = flags(comparison=ComparisonGroup(rel_tol=1e-3), limits=LimitsGroup(timeout=3.0, memory=512))
    functions = given.options_for(kind_named("python-function"))
    assert functions.limits.memory_mb == 512 and functions.limits.timeout == 3.0
    assert functions.comparison.rel_tol == 1e-3 and functions.comparison.abs_tol == 0.0
    assert functions.programs == SearchOptions().programs  # not the kind's group: left as it is
    programs = flags(comparison=ComparisonGroup(rel_tol=1e-3), limits=LimitsGroup(timeout=3.0, memory=512),
                     programs=ProgramGroup(cflags=["-m32 -DX"], javacflags=["-Xlint"]))
    options = programs.options_for(kind_named("stdin-program"))
    assert options.limits.memory_mb == SearchOptions().limits.memory_mb  # a Python worker's, untouched
    settings = options.programs
    assert settings.memory_limit == 512 and settings.limits(options.limits.timeout).time_limit == 3.0
    assert (settings.rel_tol, settings.abs_tol) == (1e-3, 1e-6)
    build = settings.build_options()
    assert build.cflags == (*BuildOptions().cflags, "-m32", "-DX")
    assert build.cxxflags == BuildOptions().cxxflags
    assert build.javacflags == (*BuildOptions().javacflags, "-Xlint")
    with pytest.raises(InvalidArgument, match="at least 64 MiB"):
        flags(limits=LimitsGroup(memory=32)).options_for(kind_named("python-function"))
    assert flags(limits=LimitsGroup(memory=32)).options_for(kind_named("command")).programs.memory_limit == 32


def test_older_spellings_are_hidden_still_read_and_said_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text("check", monkeypatch=monkeypatch)
    assert not [flag for flag in OLDER if f"{flag} " in text]
    older = ProgramGroup(example=["s.txt"], inputs="tests", time_limit=1.0, memory_limit=64, float_tol=1e-3,
                         std="c++20")
    assert capsys.readouterr().err == ""  # not a terminal: a script's stderr is left alone
    settings = older.build(flags())
    assert settings.examples == ("s.txt",) and settings.inputs_dir == "tests" and settings.time_limit == 1.0
    assert settings.memory_limit == 64 and (settings.rel_tol, settings.abs_tol) == (1e-3, 1e-3)
    assert "-std=c++20" in settings.build_options().cxxflags
    monkeypatch.setattr("divergent.cli.option_groups.stderr_is_terminal", lambda: True)
    ProgramGroup(time_limit=1.0)
    assert capsys.readouterr().err == "divergent: warning: --time-limit is deprecated: use --timeout\n"
    with pytest.raises(InvalidArgument, match="--float-tol"):
        ProgramGroup(float_tol=0.1).build(flags(comparison=ComparisonGroup(abs_tol=0.1)))


def test_tolerances_are_one_concept_for_every_kind() -> None:
    comparison = OutputComparison(mode="float", rel_tol=1e-3, abs_tol=0.0)
    assert comparison.outputs_equal("1000\n", "1000.5\n") and not comparison.outputs_equal("0.0001", "0.0002")
    older = OutputComparison(mode="float", float_tol=1e-6)
    assert (older.rel_tol, older.abs_tol, older.float_tol) == (1e-6, 1e-6, None)
    assert older.describe().startswith("output=float(tol=1e-06)")
    assert "rel_tol=0.001, abs_tol=0" in comparison.describe()
    # a reproducing test written before passes float_tol= through the options: still read
    assert SearchOptions.of(float_tol=0.1).programs.abs_tol == 0.1
    # from Python too, the tolerances are one concept: the comparison's and whole programs' float mode
    both = SearchOptions.of(rel_tol=1e-3)
    assert both.comparison.rel_tol == both.programs.rel_tol == 1e-3 and both.programs.abs_tol == 1e-6
    # and the timeout: a call's limit, and whole programs' CPU limit unless time_limit says otherwise
    timed = SearchOptions.of(timeout=3.0)
    assert timed.limits.timeout == 3.0 and timed.programs.limits(timed.limits.timeout).time_limit == 3.0
    assert SearchOptions.of(timeout=3.0, time_limit=1.0).programs.limits(3.0).time_limit == 1.0


def test_seeds_of_whole_programs_are_files_or_directories(tmp_path: Path) -> None:
    from divergent.kinds.texts import text_seeds

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "01").write_text("1\n")
    (tmp_path / "tests" / "01.ans").write_text("2\n")
    (tmp_path / "sample.txt").write_text("3\n")
    found = text_seeds(SearchOptions(seeds=(str(tmp_path / "sample.txt"), str(tmp_path / "tests"))))
    assert [item.text for item in found] == ["3\n", "1\n"]


# -- whole programs: compiler flags, compile errors, timeouts ----------------------------------------

NEEDS_CPP20 = """\
    #include <cstdio>
    #if __cplusplus < 202002L
    #error "needs C++20"
    #endif
    #ifndef ONLINE_JUDGE
    #error "the judge's define is gone"
    #endif
    int main() { puts("built as asked"); }
"""


def write(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_compiler_flags_add_to_the_judges_defaults(programs_dir: Path, build_cache: str) -> None:
    need_tool("g++")
    program = write(programs_dir, "needs20.cpp", NEEDS_CPP20)
    twice = write(programs_dir, "twice20.py", "print('built as asked')\n")
    sample = write(programs_dir, "twice20.txt", "3\n")
    common = [program, twice, "--seeds", sample, "--build-cache", build_cache, "--budget", "60", "--executions", "30",
              "--min-inputs", "0"]  # 30 runs: a verdict of its own, not too few inputs
    refused = runner.invoke(app, ["check", *common])
    assert refused.exit_code == 2 and "needs C++20" in refused.stderr
    built = runner.invoke(app, ["check", *common, "--cxxflags=-std=c++20", "--quiet"])
    assert built.exit_code == 0, built.stderr


LOCAL_ONLY_BUG = """\
    #include <cstdio>
    int main() {
      long n; scanf("%ld", &n);
    #ifdef LOCAL
      if (n >= 5) n += 1;
    #endif
      printf("%ld\\n", n);
    }
"""


def test_the_reproducing_test_rebuilds_with_the_runs_compiler_flags(programs_dir: Path, build_cache: str,
                                                                    tmp_path: Path) -> None:
    import subprocess

    need_tool("g++")
    program = write(programs_dir, "local_only.cpp", LOCAL_ONLY_BUG)
    echo = write(programs_dir, "local_echo.py", "print(int(input()))\n")
    sample = write(programs_dir, "local_sample.txt", "1\n")
    emitted = programs_dir / "test_emitted_local.py"
    result = runner.invoke(app, ["check", program, echo, "--seeds", sample, "--cxxflags=-DLOCAL", "--budget", "30",
                                 "--build-cache", build_cache, "--emit-test", str(emitted), "--quiet"])
    assert result.exit_code == 1, result.output
    assert "-DLOCAL" in emitted.read_text()
    # built without the flag the programs agree on every input: the test fails only if it rebuilds with it
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(emitted)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "1 failed" in run.stdout, run.stdout[-2000:]


def test_every_program_that_does_not_build_is_shown_as_its_compiler_printed_it(
        programs_dir: Path, build_cache: str, monkeypatch: pytest.MonkeyPatch) -> None:
    need_tool("gcc")
    need_tool("g++")
    monkeypatch.chdir(programs_dir)
    write(programs_dir, "broken_one.c", "int main(void) { return missing_c; }\n")
    write(programs_dir, "broken_two.cpp", "int main() {\n  return missing_cpp\n}\n")
    write(programs_dir, "fine.c", "int main(void) { return 0; }\n")
    broken_c, broken_cpp, fine = "broken_one.c", "broken_two.cpp", "fine.c"
    result = runner.invoke(app, ["check", broken_c, fine, broken_cpp, "--budget", "60", "--build-cache", build_cache])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == "divergent: error: 2 programs do not build: broken_one.c, broken_two.cpp"
    text = result.stderr
    assert "broken_one.c: compile error: broken_one.c:1:25: error: 'missing_c' undeclared" in text.replace("‘", "'")\
        .replace("’", "'")
    assert "missing_cpp" in text and "built with: " in text
    # the compiler's own lines, indented, carets in place
    assert any(line.startswith("    ") and line.strip().startswith("|") and "^" in line for line in lines)
    as_json = runner.invoke(app, ["check", broken_c, broken_cpp, fine, "--budget", "60", "--build-cache", build_cache,
                                  "--json"])
    document = json.loads(as_json.stdout)
    assert document["error"].startswith("2 programs do not build") and "missing_cpp" in document["details"]


def run(**numbers: object) -> ProgramRun:
    return ProgramRun(kind=OutcomeKind.TIMEOUT, **numbers)  # type: ignore[arg-type]


def test_a_timeout_says_which_limit_stopped_it() -> None:
    limits = ProgramLimits(time_limit=1.5)
    kernel = timeout_detail(run(signal="SIGXCPU", cpu_seconds=1.81, seconds=2.0), limits)
    assert kernel == ("CPU limit: stopped by the kernel at 2 s of CPU (the 1.5 s CPU limit, rounded up to whole "
                      "seconds); 1.81 s measured after the run (the kernel counts in clock ticks: its count can run "
                      "ahead)")
    ended = timeout_detail(run(exit_code=0, cpu_seconds=1.7, seconds=1.8), limits)
    assert ended == "CPU limit: 1.70 s of CPU, over the 1.5 s CPU limit (it ran to its end)"
    wall = timeout_detail(run(cpu_seconds=0.2, seconds=3.0), limits)
    assert wall == "wall-clock limit: no end within 3 s (twice the 1.5 s CPU limit); 0.20 s of CPU used; killed"
    rerun = timeout_detail(run(signal="SIGXCPU", cpu_seconds=6.2), ProgramLimits(time_limit=2.0).scaled(3.0))
    assert "(the 6 s CPU limit: 3x the 2 s time limit, on this re-run); 6.20 s used" in rerun


# -- one JSON shape ------------------------------------------------------------------------------


def _commands() -> dict[tuple[str, ...], object]:
    found: dict[tuple[str, ...], object] = {}

    def walk(command: object, path: tuple[str, ...]) -> None:
        found[path] = command
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return found


def test_json_is_a_flag_and_json_file_a_file_on_every_command() -> None:
    with_json = 0
    for path, command in _commands().items():
        options = {name: param for param in getattr(command, "params", []) if param.param_type_name == "option"
                   for name in param.opts}
        if "--json" in options:
            with_json += 1
            assert options["--json"].is_flag, path
        if "--json-file" in options:
            assert "--json" in options, path
    assert with_json >= 12


def test_the_older_json_file_form_is_still_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIVERGENT_HOME", str(tmp_path))
    monkeypatch.setattr(sys.modules["divergent.cli.application"], "stderr_is_terminal", lambda: True)
    older = runner.invoke(app, ["incoherence", "show", "nope", "--json", str(tmp_path / "out.json")])
    assert older.exit_code == 2 and "no run 'nope'" in older.stderr and "out.json'" not in older.stderr
    assert "--json FILE is deprecated: use --json-file FILE" in older.stderr
    dash = runner.invoke(app, ["incoherence", "show", "nope", "--json", "-"])
    assert json.loads(dash.stdout)["verdict"] == "error"


def test_json_before_an_argument_is_the_flag_and_never_overwrites_an_input(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIVERGENT_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.json").write_text('{"mine": 1}\n')
    for argument in ("keep.json", "3f2a"):  # an existing file, a run's id: arguments of show
        result = runner.invoke(app, ["incoherence", "show", "--json", argument])
        assert result.exit_code == 2 and f"no run '{argument}'" in result.stderr
        assert json.loads(result.stdout)["verdict"] == "error"
    assert (tmp_path / "keep.json").read_text() == '{"mine": 1}\n' and not (tmp_path / "3f2a").exists()


def test_check_writes_its_json_file_beside_the_report(tmp_path: Path) -> None:
    out = tmp_path / "check.json"
    result = runner.invoke(app, ["check", str(ROOT / "examples/old.py"), str(ROOT / "examples/new.py"), "-f",
                                 "normalize", "--budget", "20", "--json-file", str(out)])
    assert result.exit_code == 1, result.stderr
    assert json.loads(out.read_text())["verdict"] == "divergent"
    assert not result.stdout.lstrip().startswith("{") and "differ" in result.stdout  # the report, as usual


def test_brute_force_is_a_capability_a_kind_has_or_says_it_lacks(tmp_path: Path) -> None:
    # (it was an internal error, exit 3, on whole programs and commands)
    script = tmp_path / "double.py"
    script.write_text("print(2 * int(input()))\n")
    for specs in ([str(script), "--stdin"], ["cmd:cat"]):
        result = runner.invoke(app, ["check", *specs, "--brute-force", "--budget", "5"])
        assert result.exit_code == 2, result.output
        assert "--brute-force is for Python functions; these are " in result.stderr
    assert [kind.name for kind in all_kinds() if kind.brute_force] == ["python-function"]


def test_memory_is_handed_to_the_kind_whatever_groups_it_reads() -> None:
    # a kind reads --memory its own way (no option group lists kinds): every kind gets it
    for kind in all_kinds():
        plain = flags().options_for(kind).with_(started=None)
        given = flags(limits=LimitsGroup(memory=300)).options_for(kind).with_(started=None)
        assert given != plain and given == kind.with_memory(plain, 300), kind.name
    with pytest.raises(InvalidArgument, match="--memory 4: a whole program's run needs at least 8 MiB"):
        flags(limits=LimitsGroup(memory=4)).options_for(kind_named("stdin-program"))
