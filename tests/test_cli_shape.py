"""One shape for the command line: --version, flags shown as flags, the harnesses' run/show/list with
the same options, the older harness form still read, tables that never cut a value."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup
from typer.testing import CliRunner

from divergent import __version__
from divergent.cli import app
from divergent.report.tables import fitted

HARNESSES = (("incoherence",), ("bench", "refute"), ("bench", "equibench"), ("bench", "cetbench"),
             ("bench", "selfconsistency"))
#: the options every harness's ``run`` takes, with one meaning (docs/bench.md)
SHARED_RUN_OPTIONS = {"--json", "--html", "--quiet", "-q", "--db", "--jobs", "-j", "--executor", "--address",
                      "--isolation"}


def _commands() -> dict[tuple[str, ...], object]:
    found: dict[tuple[str, ...], object] = {}

    def walk(command: object, path: tuple[str, ...]) -> None:
        found[path] = command
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return found


def _option_names(command: object) -> set[str]:
    return {name for param in command.params if param.param_type_name == "option"  # type: ignore[attr-defined]
            for name in (*param.opts, *param.secondary_opts)}


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"divergent {__version__}"


@pytest.mark.parametrize("path", sorted(_commands()), ids=lambda path: " ".join(path) or "divergent")
def test_help_shows_no_value_for_a_plain_flag(path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    assert "--help" in result.output


def test_every_harness_has_run_show_list_with_the_same_options() -> None:
    commands = _commands()
    for harness in HARNESSES:
        assert {(*harness, name) for name in ("run", "show", "list")} <= set(commands), harness
        run = _option_names(commands[(*harness, "run")])
        assert run >= SHARED_RUN_OPTIONS, (harness, SHARED_RUN_OPTIONS - run)
        assert {"--json", "--html", "--quiet", "-q", "--db"} <= _option_names(commands[(*harness, "show")])
    assert SHARED_RUN_OPTIONS - {"--html"} <= _option_names(commands[("bench", "cetbench", "generate")])
    # a long command that prints notes can be quieted
    for path, command in commands.items():
        if path and path[-1] in ("run", "generate", "sample", "check", "cluster"):
            assert {"--quiet", "-q"} <= _option_names(command), path


def test_the_older_harness_form_is_read_as_run_with_a_note_on_a_terminal(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    older = ["bench", "equibench", "--data", str(tmp_path / "nothing"), "--judge", "execution"]
    piped = CliRunner().invoke(app, older)
    assert piped.exit_code == 2 and "is now" not in piped.output  # a script's stderr keeps one line per error
    monkeypatch.setattr(sys.modules["divergent.cli.application"], "stderr_is_terminal", lambda: True)
    result = CliRunner().invoke(app, older)
    assert result.exit_code == 2
    assert "is now `divergent bench equibench run --data ...`" in result.output
    pac = CliRunner().invoke(app, ["incoherence", "--epsilon", "0.05", "--delta", "0.01"])
    assert pac.exit_code == 0 and "1,060" in pac.output and "incoherence pac --epsilon" in pac.output
    bare = CliRunner().invoke(app, ["bench", "refute"])
    assert "run" in bare.output and "show" in bare.output and "list" in bare.output


def test_json_dash_prints_the_document_instead_of_the_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_bench_cetbench import _pairs_file

    monkeypatch.setenv("DIVERGENT_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(app, ["bench", "cetbench", "run", "--pairs", str(_pairs_file(tmp_path)), "--judge",
                                      "execution", "--budget", "1", "-q", "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["benchmark"] == "cetbench" and document["items"]
    shown = CliRunner().invoke(app, ["bench", "cetbench", "show", document["run"][:8], "--json", "-"])
    assert shown.exit_code == 0 and json.loads(shown.stdout)["items"] == document["items"]


def _strategy_table() -> Table:
    table = Table(title="by strategy")
    for column in ("model", "strategy", "pass@k", "solved", "valid. failed", "unparseable", "printer failed",
                   "no difference", "wrong/correct failed", "tokens", "cost $", "s / problem"):
        table.add_column(column)
    table.add_row("gpt-4o-mini-2024-07-18", "zero-shot-oracle", "10.0 (k=1)", "3/30", "0", "1", "2", "5", "0/0",
                  "12,345,678", "10.0123", "104.5")
    return table


def test_a_table_too_wide_for_the_terminal_is_printed_one_block_per_row_never_cut() -> None:
    narrow = Console(width=80, record=True)
    narrow.print(fitted(_strategy_table(), heading_columns=2))
    text = narrow.export_text()
    assert "…" not in text and all(len(line.rstrip()) <= 80 for line in text.splitlines())
    for value in ("gpt-4o-mini-2024-07-18 · zero-shot-oracle", "12,345,678", "10.0123", "wrong/correct failed",
                  "104.5"):
        assert value in text
    assert re.search(r"^\s+tokens\s+12,345,678$", text, re.MULTILINE)
    wide = Console(width=240, record=True)
    wide.print(fitted(_strategy_table(), heading_columns=2))
    assert "┃ model" in wide.export_text() and "…" not in wide.export_text()


@pytest.mark.skipif(sys.platform != "linux", reason="the sandbox table names Linux isolation levels")
def test_the_cli_s_tables_fit_80_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_bench_cetbench import _pairs_file

    monkeypatch.setenv("DIVERGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COLUMNS", "80")
    runner = CliRunner()
    outputs = [runner.invoke(app, ["bench", "cetbench", "run", "--pairs", str(_pairs_file(tmp_path)), "--judge",
                                   "execution", "--budget", "1", "--originals", "-q"]).output]
    for command in (["bench", "cetbench", "list"], ["sandbox"], ["probegen", "costs"], ["report"]):
        outputs.append(runner.invoke(app, command).output)
    text = "\n".join(outputs)
    assert "…" not in text, text
    assert "W-Avg" in text and "NegF1" in text


def test_help_keeps_bracketed_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich reads ``[word]`` in help as markup and drops it: such words are escaped where written."""
    monkeypatch.setenv("COLUMNS", "200")
    shown = CliRunner().invoke(app, ["bench", "equibench", "run", "--help"]).output
    assert "an [llm] table" in shown and "divergent[ray]" in shown


_ONE_COMMAND = """
import json, sys
import typer
from divergent.cli import register_commands

name = sys.argv[1]
group = typer.main.get_command(register_commands([name]))
loaded = sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("divergent.cli.") and m.count(".") == 2)

def shape(command):
    params = sorted(opt for p in command.params for opt in (p.opts or [p.name]))
    subs = {n: shape(c) for n, c in getattr(command, "commands", {}).items()}
    return {"params": params, "commands": subs}

print(json.dumps({"names": sorted(group.commands), "shape": shape(group.commands[name]), "loaded": loaded}))
"""


def _shape(command: object) -> dict[str, object]:
    params = sorted(opt for p in command.params for opt in (p.opts or [p.name]))  # type: ignore[attr-defined]
    subs = {n: _shape(c) for n, c in getattr(command, "commands", {}).items()}
    return {"params": params, "commands": subs}


def test_the_program_registers_only_the_command_it_runs_and_that_command_is_whole() -> None:
    """The program imports only the named command's modules (a quick check does not pay for the
    others); each command registered alone has the same options and subcommands as in the whole
    application, and every command of the application has its modules listed."""
    import subprocess

    from divergent.cli import COMMAND_MODULES

    whole = typer.main.get_command(app)
    assert sorted(whole.commands) == sorted(COMMAND_MODULES)  # type: ignore[attr-defined]
    for name in COMMAND_MODULES:
        ran = subprocess.run([sys.executable, "-c", _ONE_COMMAND, name], capture_output=True, text=True, check=True)
        alone = json.loads(ran.stdout)
        assert alone["names"] == [name]
        assert alone["shape"] == _shape(whole.commands[name])  # type: ignore[attr-defined]
        commands_loaded = {m for m in alone["loaded"] if any(m in mods for mods in COMMAND_MODULES.values())}
        assert commands_loaded == set(COMMAND_MODULES[name]), name
