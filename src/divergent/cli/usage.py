"""How the command line speaks about itself: ``--help`` pages that never cut a flag or a default, and
usage errors (a bad value, an unknown option, a missing argument) worded for people and said the
contract's way (``divergent: error: ...`` on stderr, exit 2, and the JSON error object under
``--json``), whatever the parser's own words.

Both work on the parser's public interface (a parameter's ``get_help_record``, ``opts``,
``secondary_opts``; an exception's class and attributes), so they hold across typer's releases,
which word errors and lay out help differently."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer

from divergent.errors import InvalidArgument

if TYPE_CHECKING:
    from rich.console import RenderableType

#: the parser's usage error (click's, vendored by newer typer releases): the base of BadParameter
UsageError: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
#: ``divergent`` without a command (or a group without one) shows its help: not an error to reword
_SHOWS_HELP = frozenset({"NoArgsIsHelpError"})
#: the panel of options given none
DEFAULT_PANEL = "Options"


# -- usage errors -------------------------------------------------------------------------------


def wants_json(args: Sequence[str]) -> bool:
    """Whether the command line asks for JSON on stdout (``--json``, ``--json-file -``), before ``--``."""
    words = list(args[: list(args).index("--")] if "--" in args else args)
    for index, word in enumerate(words):
        if word == "--json" or word in ("--json=-", "--json-file=-"):
            return True
        if word == "--json-file" and index + 1 < len(words) and words[index + 1] == "-":
            return True
    return False


@contextmanager
def usage_errors(ctx: Any) -> Iterator[None]:
    """A usage error raised within the block as an input error in plain words (InvalidArgument:
    its reason, then how to see the command's help), which the command line says the contract's
    way; a group given no command shows its help and exits 2."""
    try:
        yield
    except UsageError as error:
        if type(error).__name__ in _SHOWS_HELP:
            print(ctx.get_help(), end="")
            raise typer.Exit(2) from None
        reason, details = usage_error_text(error, ctx)
        raise InvalidArgument(f"{reason}\n{details}" if details else reason) from None


def usage_error_text(error: BaseException, ctx: Any = None) -> tuple[str, str]:
    """The one-line reason for a usage error, and its details (how to see the command's help)."""
    ctx = getattr(error, "ctx", None) or ctx
    name = type(error).__name__
    if name == "NoSuchOption":
        reason = _no_such_option(error, ctx)
    elif name == "BadOptionUsage" and getattr(error, "option_name", None):
        reason = _bad_option_usage(error)
    elif name == "MissingParameter":
        reason = f"missing {_parameter_name(getattr(error, 'param', None)) or _plain(_message(error))}"
    elif name == "BadParameter":
        reason = _bad_parameter(error)
    else:
        reason = _no_such_command(error, ctx) or _plain(_message(error))
    path = getattr(ctx, "command_path", "") or "divergent"
    if reason.startswith("no such command"):
        return reason, f"`{path} --help` lists the commands"
    return reason, f"`{path} --help` shows every option"


def _message(error: BaseException) -> str:
    return str(getattr(error, "message", "") or error)


def _plain(text: str) -> str:
    text = " ".join(text.split()).rstrip(".")
    return text[:1].lower() + text[1:]


def _parameter_name(param: Any) -> str:
    """``--budget`` for an option (its first long name), ``IMPL...`` for an argument."""
    if param is None:
        return ""
    names = [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())]
    if getattr(param, "param_type_name", "") == "option":
        longs = [n for n in names if n.startswith("--")]
        return (longs or names or [param.name])[0]
    metavar = param.metavar or (param.name or "").upper()
    return metavar + ("..." if getattr(param, "nargs", 1) == -1 and not metavar.endswith("...") else "")


def _all_options(ctx: Any) -> list[str]:
    command = getattr(ctx, "command", None)
    if command is None:
        return []
    return [n for p in command.get_params(ctx) if not getattr(p, "hidden", False)
            for n in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ())) if n.startswith("-")]


def _no_such_option(error: Any, ctx: Any) -> str:
    option = str(getattr(error, "option_name", "") or "")
    if not option:
        return _plain(_message(error))
    close = difflib.get_close_matches(option, _all_options(ctx), n=2, cutoff=0.75)
    reason = f"no such option {option}"
    if close:
        reason += f" (did you mean {' or '.join(close)}?)"
    elif option == "-v" and getattr(ctx, "parent", None) is None:
        reason += " here: -V prints the version; -v (--verbose) belongs to a command, as in divergent check -v"
    return reason


def _bad_option_usage(error: Any) -> str:
    message = _message(error)
    if "requires" in message and "argument" in message:
        return f"{error.option_name} needs a value"
    return _plain(message)


#: click's words for a value it could not read, and ours
_NOT_A = {"float": "not a number", "integer": "not a whole number", "boolean": "not true or false"}
_RANGE = re.compile(r"^(?P<value>.+?) is not in the range (?P<range>.+?)\.?$")
_NOT_VALID = re.compile(r"^(?P<value>.+?) is not a valid (?P<kind>float|integer|boolean)( range)?\.?$")


def _bad_parameter(error: Any) -> str:
    message = " ".join(_message(error).split())
    shown = _parameter_name(getattr(error, "param", None))
    match = _NOT_VALID.match(message)
    if match:
        text = f"{match['value']} is {_NOT_A[match['kind']]}"
    elif (match := _RANGE.match(message)) is not None:
        text = f"{match['value']} is out of range: {_range_words(match['range'])}"
    else:
        text = _plain(message)
    return f"{shown} {text}" if shown else text


def _range_words(described: str) -> str:
    """``x>=1`` → ``at least 1``; ``0<=x<=1`` → ``from 0 to 1`` (click's ranges in words)."""
    words = {">=": "at least", ">": "more than", "<=": "at most", "<": "less than"}
    both = re.fullmatch(r"(?P<low>[^<>=]+)(?P<a><=?)x(?P<b><=?)(?P<high>[^<>=]+)", described.replace(" ", ""))
    if both:
        low = f"from {both['low']}" if both["a"] == "<=" else f"more than {both['low']}"
        high = f"to {both['high']}" if both["b"] == "<=" else f"below {both['high']}"
        return f"{low} {high}"
    one = re.fullmatch(r"x(?P<op>[<>]=?)(?P<bound>.+)", described.replace(" ", ""))
    if one:
        return f"{words[one['op']]} {one['bound']}"
    return described


def _no_such_command(error: Any, ctx: Any) -> str:
    match = re.match(r"No such command '(?P<name>[^']*)'", _message(error))
    if match is None:
        return ""
    commands = sorted(getattr(getattr(ctx, "command", None), "commands", {}) or ())
    close = difflib.get_close_matches(match["name"], commands, n=2, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}?" if close else f"the commands: {', '.join(commands)}"
    return f"no such command {match['name']!r} ({hint})"


# -- help ---------------------------------------------------------------------------------------


def help_text(command: Any, ctx: Any) -> str:
    """The command's ``--help``: usage, what it does, then its parameters in their panels, each
    flag and default whole (a narrow terminal wraps them; nothing is cut). Styled when stdout is a
    terminal, as wide as it is (``COLUMNS`` when set)."""
    import io
    import shutil
    import sys

    from rich.console import Console

    buffer = io.StringIO()
    terminal = sys.stdout.isatty()
    console = Console(file=buffer, highlight=False, width=shutil.get_terminal_size().columns,
                      force_terminal=terminal, no_color=not terminal)
    _print_help(console, command, ctx)
    return buffer.getvalue()


def _print_help(console: Any, command: Any, ctx: Any) -> None:
    console.print(f" [bold]Usage:[/bold] {usage_line(command, ctx)}", soft_wrap=False)
    from rich.padding import Padding

    text = command.help or ""
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        if paragraph.strip():  # a paragraph's lines are one text, wrapped to the terminal
            console.print()
            console.print(Padding(_markup(" ".join(paragraph.split())), (0, 0, 0, 1)))
    console.print()
    panels: dict[str, list[Any]] = {}
    arguments = []
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        if param.param_type_name == "argument":
            arguments.append(param)
        else:
            panels.setdefault(getattr(param, "rich_help_panel", None) or DEFAULT_PANEL, []).append(param)
    if arguments:
        _print_panel(console, "Arguments", [_row(param, ctx) for param in arguments])
    ordered = [DEFAULT_PANEL, *(name for name in panels if name != DEFAULT_PANEL)] if DEFAULT_PANEL in panels else list(panels)
    for name in ordered:
        _print_panel(console, name, [_row(param, ctx) for param in panels[name]])
    commands = getattr(command, "commands", None)
    if commands:
        rows = []
        for name in command.list_commands(ctx):
            sub = commands[name]
            if getattr(sub, "hidden", False):
                continue
            first = re.split(r"\n\s*\n", (sub.help or sub.short_help or "").strip())[0]
            rows.append((name, " ".join(first.split()), ""))
        _print_panel(console, "Commands", rows)
    if getattr(command, "epilog", None):
        console.print(Padding(_markup(" ".join(command.epilog.split())), (0, 0, 0, 1)))


def usage_line(command: Any, ctx: Any) -> str:
    """``divergent check [OPTIONS] IMPL...``: each argument by its name, ``...`` when it takes many."""
    pieces = ["[OPTIONS]"] if any(p.param_type_name == "option" and not getattr(p, "hidden", False)
                                  for p in command.get_params(ctx)) else []
    for param in command.get_params(ctx):
        if param.param_type_name == "argument":
            name = _parameter_name(param)
            pieces.append(name if param.required else f"[{name}]")
    if getattr(command, "commands", None):
        pieces.append("COMMAND [ARGS]...")
    return " ".join([ctx.command_path, *pieces])


def _row(param: Any, ctx: Any) -> tuple[str, str, str]:
    """(names, help, extras such as the default): the names long first (``--budget, -b SECONDS``)."""
    record = param.get_help_record(ctx)
    if param.param_type_name == "argument":
        return _parameter_name(param), _help_and_extras(record[1] if record else getattr(param, "help", "") or "")[0], \
            "required" if param.required else ""
    names = [*param.opts]
    names.sort(key=lambda name: not name.startswith("--"))
    shown = ", ".join(names)
    if param.secondary_opts:
        shown += " / " + ", ".join(param.secondary_opts)
    if record is not None and not getattr(param, "is_flag", False) and not getattr(param, "count", False):
        metavar = record[0].rsplit(" ", 1)[-1] if " " in record[0] else ""
        if metavar and not metavar.startswith("-"):
            shown += f" {metavar}"
    help_text, extras = _help_and_extras(record[1] if record else "")
    return shown, help_text, extras


def _help_and_extras(text: str) -> tuple[str, str]:
    """A help record's text, and its bracketed extras at the end (``default: 20.0; x>=0.01``)."""
    match = re.search(r"\s*\[(?P<extras>[^\[\]]*)\]\s*$", text)
    if match is None or not re.match(r"(default|required|env var|x[<>]|[-\d.]+<)", match["extras"]):
        return text, ""
    return text[: match.start()], match["extras"]


def _markup(text: str) -> RenderableType:
    from rich.text import Text

    try:
        return Text.from_markup(text)
    except Exception:  # noqa: BLE001 - help that is not valid markup is shown as it is
        return Text(text)


def _print_panel(console: Any, title: str, rows: list[tuple[str, str, str]]) -> None:
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    if not rows:
        return
    inner = max(20, console.width - 4)
    names_width = min(max(len(row[0]) for row in rows), max(18, inner // 3))
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=False, overflow="fold", min_width=min(names_width, 18),
                     max_width=names_width)
    table.add_column(ratio=1, overflow="fold")
    for names, help_text, extras in rows:
        cell = _markup(" ".join(help_text.split()))
        assert isinstance(cell, Text)
        if extras:
            cell.append(f"  [{extras}]", style="dim")
        table.add_row(Text(names, overflow="fold"), cell)
    console.print(Panel(table, title=title, title_align="left", border_style="dim"))
