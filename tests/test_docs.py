"""The documentation against the command line: every documented command, flag and default exists.

README.md and docs/*.md are read as a user reads them: each ``divergent ...`` command line (in code
blocks and inline code) must name a command whose options include every flag it shows; every flag
in inline code must be an option of some command; and every default a doc states (the option
tables' "default" column, "the default `--flag value`", "`--flag` (default `value`)") must be the
default the command line has.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.core import TyperGroup

from divergent.cli import app
from divergent.cli.application import DefaultRunGroup

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: flags of other programs that the docs mention in inline code (bubblewrap's command line)
OTHER_PROGRAMS_FLAGS = frozenset({"--unshare-user", "--cap-drop", "--ro-bind", "--size", "--dev", "--proc", "--as-pid-1"})


def _commands() -> dict[tuple[str, ...], object]:
    found: dict[tuple[str, ...], object] = {}

    def walk(command: object, path: tuple[str, ...]) -> None:
        found[path] = command
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return found


COMMANDS = _commands()


def _options(command: object) -> dict[str, object]:
    options: dict[str, object] = {"--help": None, "-h": None}  # every command's help option
    for param in command.params:  # type: ignore[attr-defined]
        if param.param_type_name == "option":
            for name in (*param.opts, *param.secondary_opts):
                options[name] = param
    return options


ALL_OPTIONS: dict[str, list[object]] = {}
for _command in COMMANDS.values():
    for _name, _param in _options(_command).items():
        ALL_OPTIONS.setdefault(_name, []).append(_param)


def _code_blocks(text: str) -> Iterator[tuple[int, str]]:
    """(line number, logical line) of every fenced code block; a line starting with blanks after a
    ``divergent`` line continues it (the synopsis), as does a line ending in a backslash."""
    inside = False
    pending: tuple[int, str] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            if pending:
                yield pending
                pending = None
            inside = not inside
            continue
        if not inside:
            continue
        if pending and ((line.startswith((" ", "\t")) and pending[1].rstrip().endswith(("\\", "]", ")")))
                        or pending[1].rstrip().endswith("\\")):
            pending = (pending[0], pending[1].rstrip().rstrip("\\") + " " + line.strip())
            continue
        if pending:
            yield pending
        pending = (number, line.strip())
    if pending:
        yield pending


def _inline_spans(text: str) -> Iterator[tuple[int, str]]:
    inside = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        if inside:
            continue
        for span in re.findall(r"(?<!`)`([^`]+)`(?!`)", line):
            yield number, span


def _command_lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in [*_code_blocks(text), *_inline_spans(text)]:
        line = line.removeprefix("$ ").split(" # ")[0].split("   #")[0]
        if line.startswith("divergent ") or line == "divergent":
            yield number, line


def _tokens(line: str) -> list[str]:
    # shell words first, so a quoted argument ('cmd:grep -c X') is one token, not a flag
    try:
        words = shlex.split(line)
    except ValueError:  # an unbalanced quote in prose
        words = line.split()
    return [token.strip("[](){}|,;") for token in words]


def _resolutions(tokens: list[str]) -> list[tuple[tuple[str, ...], list[str]]]:
    """The commands a line may name, and the rest of its tokens: a placeholder such as ``NAME`` in a
    command's place stands for each subcommand; a harness's older form (its group, then ``run``'s
    options) is read as ``run``, as the command line reads it."""
    found = []
    pending: list[tuple[tuple[str, ...], list[str]]] = [((), tokens[1:])]
    while pending:
        path, rest = pending.pop()
        if rest and (*path, rest[0]) in COMMANDS:
            pending.append(((*path, rest[0]), rest[1:]))
        elif rest and re.fullmatch(r"[A-Z]+", rest[0]) and isinstance(COMMANDS[path], TyperGroup):
            pending += [((*path, name), rest[1:]) for name in COMMANDS[path].commands]  # type: ignore[attr-defined]
        elif rest and _is_flag(rest[0]) and isinstance(COMMANDS[path], DefaultRunGroup) and (*path, "run") in COMMANDS:
            pending.append(((*path, "run"), rest))
        else:
            found.append((path, rest))
    return found


def _resolve(tokens: list[str]) -> tuple[tuple[str, ...], list[str]]:
    return _resolutions(tokens)[0]


def _is_flag(token: str) -> bool:
    return bool(re.fullmatch(r"--?[A-Za-z][A-Za-z0-9-]*(=.*)?", token))


def _documented_lines() -> list[tuple[str, int, str]]:
    return [(path.name, number, line) for path in DOCS for number, line in _command_lines(path.read_text())]


def test_the_docs_show_command_lines() -> None:
    lines = _documented_lines()
    assert len(lines) > 50
    commands = {" ".join(_resolve(_tokens(line))[0]) for _, _, line in lines}
    assert {"check", "cluster", "incoherence run", "bench refute run", "bench equibench run", "bench cetbench run",
            "bench cetbench generate", "report", "sandbox"} <= commands


def test_every_documented_command_line_names_options_the_command_has() -> None:
    problems = []
    for doc, number, line in _documented_lines():
        missing_by_command = {}
        for path, rest in _resolutions(_tokens(line)):
            options = _options(COMMANDS[path])
            flags = [token.split("=", 1)[0] for token in rest if _is_flag(token)]
            missing_by_command[path] = [flag for flag in flags if flag not in options]
        if all(missing_by_command.values()):
            path, missing = next(iter(missing_by_command.items()))
            where = "divergent " + " ".join(path) if path else "divergent"
            problems += [f"{doc}:{number}: `{where}` has no option {flag} (in: {line})" for flag in missing]
    assert not problems, "\n".join(problems)


def test_every_flag_in_inline_code_is_an_option_of_some_command() -> None:
    problems = []
    for path in DOCS:
        for number, span in _inline_spans(path.read_text()):
            first = span.split()[0] if span.split() else ""
            for flag in first.split("/"):
                flag = flag.split("=", 1)[0].rstrip(",.:")
                if re.fullmatch(r"--[a-z][a-z0-9-]*", flag) and flag not in ALL_OPTIONS \
                        and flag not in OTHER_PROGRAMS_FLAGS:
                    problems.append(f"{path.name}:{number}: no command has {flag} (in `{span}`)")
    assert not problems, "\n".join(problems)


def _default_matches(flag: str, documented: str) -> bool:
    """Whether some command's ``flag`` has the documented default."""
    documented = documented.strip().strip("`")
    for param in ALL_OPTIONS.get(flag, []):
        actual = getattr(param, "default", None)
        actual = getattr(actual, "value", actual)
        if documented in ("off", "none") and actual in (False, None):
            return True
        if documented == "on" and actual is True:
            return True
        try:
            if actual is not None and not isinstance(actual, bool) and float(documented) == float(actual):
                return True
        except (TypeError, ValueError):
            pass
        if str(actual) == documented:
            return True
    return False


def _stated_defaults() -> Iterator[tuple[str, int, str, str]]:
    """(doc, line, flag, documented default) of the defaults the docs state plainly."""
    for path in DOCS:
        table_has_defaults = False
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else []
            if cells and not set(line.strip()) <= set("|-: "):
                if [c.lower() for c in cells[:2]] == ["option", "default"]:
                    table_has_defaults = True
                    continue
                if table_has_defaults and len(cells) >= 2:
                    flag = re.match(r"`(--[a-z][a-z0-9-]*)", cells[0])
                    value = cells[1]
                    # a value, not a computed default (an environment variable, a path, another option)
                    literal = re.fullmatch(r"`[a-z0-9._-]+`", value) and not value.startswith("`--")
                    if flag and (re.fullmatch(r"-?[0-9.e-]+", value) or literal or value in ("off", "none")):
                        yield path.name, number, flag.group(1), value
            elif not cells:
                table_has_defaults = False
            for flag, value in re.findall(r"default `(--[a-z][a-z0-9-]*) ([^`\s]+)`", line):
                yield path.name, number, flag, value
            for flag, value in re.findall(r"`(--[a-z][a-z0-9-]*)` \(default `([^`\s]+)`\)", line):
                yield path.name, number, flag, value


def test_every_stated_default_is_the_command_line_s() -> None:
    stated = list(_stated_defaults())
    assert len(stated) > 15
    problems = [f"{doc}:{number}: {flag}'s default is not {value}" for doc, number, flag, value in stated
                if not _default_matches(flag, value)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("stale", ["the default `--timeouts inconclusive`", "`divergent bench equibench --nope`",
                                   "`--no-such-flag`"])
def test_the_checks_catch_a_stale_doc(stale: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    doc = tmp_path / "stale.md"
    doc.write_text(f"Some text with {stale} in it.\n")
    monkeypatch.setattr(f"{__name__}.DOCS", [doc])
    checks = [test_every_documented_command_line_names_options_the_command_has,
              test_every_flag_in_inline_code_is_an_option_of_some_command]
    failed = 0
    for check in checks:
        try:
            check()
        except AssertionError:
            failed += 1
    if "default" in stale:
        failed += not all(_default_matches(flag, value) for _, _, flag, value in _stated_defaults())
    assert failed >= 1
