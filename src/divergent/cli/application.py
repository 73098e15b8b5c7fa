"""The ``divergent`` application object and what every command shares: the exit codes (a contract),
one-line input errors, internal errors (exit 3, never a verdict), consoles that escape control
characters, the live progress line."""

from __future__ import annotations

import atexit
import contextlib
import functools
import inspect
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup
from typer.models import OptionInfo

from divergent.errors import DivergentError
from divergent.values import printable

if TYPE_CHECKING:
    from rich.console import Console


class _PlainFlags:
    """Help that shows no value type for a plain flag (``--quiet``, ``--help``): typer's default
    prints ``<bool>`` beside them, as if they took a value; and a name, not a Python type
    (``<str>``, ``<int range>``), for a value: ``--tasks TASKS``, ``IMPLEMENTATIONS...``. Help laid
    out by :func:`divergent.cli.usage.print_help` (no flag or default cut at any width), and usage
    errors said the contract's way (:func:`divergent.cli.usage.usage_errors`). Mixed into every
    command and group."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from divergent.cli.usage import usage_errors, wants_json

        as_json = wants_json(args)  # read now: the parser consumes ``args``
        try:
            with usage_errors(ctx):
                return super().parse_args(ctx, args)  # type: ignore[misc]
        except DivergentError as error:
            raise fail(str(error), as_json=as_json) from None

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from divergent.cli.usage import help_text

        formatter.write(help_text(self, ctx))

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            if param.metavar is not None or not param.name:
                continue
            if getattr(param, "is_flag", False):
                if not getattr(param, "count", False):
                    param.metavar = ""  # typer shows a flag's metavar in place of its type
            elif not getattr(param, "count", False):
                many = param.param_type_name == "argument" and param.nargs == -1
                param.metavar = param.name.upper() + ("..." if many else "")
        return params


class DivergentCommand(_PlainFlags, TyperCommand):
    """Every divergent command (see :class:`_PlainFlags`); one whose JSON document goes to
    ``--json-file`` still reads the older ``--json FILE`` (:func:`with_json_flag`)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from divergent.cli.config import command_defaults, forget_command
        from divergent.cli.usage import wants_json

        forget_command()
        try:  # the project's defaults ([tool.divergent] in pyproject.toml) under the flags
            defaults = command_defaults(self, ctx)
        except DivergentError as error:
            raise fail(str(error), as_json=wants_json(args)) from None
        if defaults:
            ctx.default_map = {**defaults, **(ctx.default_map or {})}
        if getattr(self.callback, "reads_older_json_value", False):
            takes_arguments = any(param.param_type_name == "argument" for param in self.params)
            args = _older_json_form(args, takes_arguments=takes_arguments)
        return super().parse_args(ctx, args)


    def invoke(self, ctx: Any) -> Any:
        from divergent.cli.config import forget_command, remember_command

        remember_command(ctx)  # where its settings came from, for its documents and errors
        try:
            return super().invoke(ctx)
        finally:
            forget_command()  # (a host running commands in process must not see this one's settings)


class Group(_PlainFlags, TyperGroup):
    """Every divergent group of commands (see :class:`_PlainFlags`)."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        from divergent.cli.usage import usage_errors, wants_json

        as_json = wants_json(args)
        try:
            with usage_errors(ctx):
                return super().resolve_command(ctx, args)
        except DivergentError as error:
            raise fail(str(error), as_json=as_json) from None


class DefaultRunGroup(Group):
    """A harness's group (``divergent bench NAME``, ``divergent incoherence``): its commands are
    ``run``, ``show`` and ``list``. The older form that put ``run``'s options right after the name
    (``divergent bench equibench --data DIR``) still works: it is read as ``... run --data DIR``,
    with a note on stderr when stderr is a terminal (a script reading stderr still gets one line
    per error)."""

    #: options that stand for another command than ``run`` in the older form (``--epsilon`` → ``pac``)
    legacy_commands: ClassVar[dict[str, str]] = {}

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0].startswith("-") and not set(args) & set(ctx.help_option_names) and "run" in self.commands:
            command = next((self.legacy_commands[a] for a in args if a in self.legacy_commands), "run")
            if stderr_is_terminal():
                print(f"divergent: note: `{ctx.command_path} {args[0]} ...` is now `{ctx.command_path} {command} "
                      f"{args[0]} ...`", file=sys.stderr)
            args = [command, *args]
        return super().parse_args(ctx, args)


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


#: ``--json``'s help, the same on every command that prints a JSON document
JSON_HELP = "Print the result as JSON on stdout (the documented contract) instead of the report or tables."
#: ``--json-file``'s help
JSON_FILE_HELP = "Also write the JSON result to FILE (- prints it on stdout, as --json does)."


def with_json_flag(command: Callable[..., Any]) -> Callable[..., Any]:
    """One shape for JSON on every command: ``--json`` prints the document on stdout, ``--json-file
    FILE`` writes it. A command whose ``as_json`` parameter is ``--json-file`` (a path, ``-`` for
    stdout) gets the ``--json`` flag here, which stands for ``--json-file -``; its older form
    ``--json FILE`` (and ``--json -``) is still read, with a note on a terminal. Other commands are
    returned as they are."""
    signature = inspect.signature(command, eval_str=True)
    parameters = list(signature.parameters.values())
    names = {name for p in parameters for name in _option_names(p)}
    target = signature.parameters.get("as_json")
    if target is None or "--json-file" not in _option_names(target) or "--json" in names:
        return command
    flag = inspect.Parameter("json_on_stdout", inspect.Parameter.KEYWORD_ONLY, default=False,
                             annotation=Annotated[bool, typer.Option("--json", help=JSON_HELP)])

    @functools.wraps(command)
    def wrapper(*args: Any, json_on_stdout: bool = False, **kwargs: Any) -> Any:
        if json_on_stdout and kwargs.get("as_json") is None:
            kwargs["as_json"] = Path("-")
        return command(*args, **kwargs)

    # the flag just before --json-file (keyword-only parameters after the others)
    position = parameters.index(target)
    ordered = [p if i < position else p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
               for i, p in enumerate(parameters)]
    ordered.insert(position, flag)
    wrapper.__signature__ = signature.replace(parameters=ordered)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in ordered}
    wrapper.reads_older_json_value = True  # type: ignore[attr-defined]
    del wrapper.__wrapped__  # typer must see the signature with the flag
    return wrapper


def _option_names(parameter: inspect.Parameter) -> tuple[str, ...]:
    for extra in getattr(parameter.annotation, "__metadata__", ()):
        if isinstance(extra, OptionInfo):
            return option_names(extra)
    return ()


def option_names(info: OptionInfo) -> tuple[str, ...]:
    """An option's spellings as declared (in ``Annotated``, typer reads the first one from where
    a default would be), each ``--a/--b`` pair split."""
    declared = (info.default, *info.param_decls) if isinstance(info.default, str) else info.param_decls
    return tuple(name for spelling in declared if str(spelling).startswith("-") for name in str(spelling).split("/"))


def _older_json_form(args: list[str], *, takes_arguments: bool) -> list[str]:
    """``--json FILE`` (the older form, where ``--json`` took the file) as ``--json-file FILE``, and
    ``--json -`` as ``--json``. For a command that also takes arguments (``show RUN``, ``analyze
    DIR``), ``--json X`` is the older form only when X is a JSON file yet to be written: an existing
    path, or a run's id, is the flag followed by an argument (an input is never overwritten)."""
    read: list[str] = []
    index = 0
    while index < len(args):
        token = args[index]
        if token == "--":
            read += args[index:]
            break
        value = None
        if token.startswith("--json="):
            value, index = token.partition("=")[2], index + 1
        elif token == "--json" and index + 1 < len(args) and _older_json_value(args[index + 1], takes_arguments):
            value, index = args[index + 1], index + 2
        else:
            read.append(token)
            index += 1
            continue
        if value == "-":
            read.append("--json")
        else:
            if stderr_is_terminal():
                print("divergent: warning: --json FILE is deprecated: use --json-file FILE", file=sys.stderr)
            read += ["--json-file", value]
    return read


def _older_json_value(value: str, takes_arguments: bool) -> bool:
    """Whether ``value``, after ``--json``, is the file of the older form."""
    if value == "-":
        return True
    if value.startswith("-"):
        return False
    return not takes_arguments or (value.lower().endswith(".json") and not Path(value).exists())


class DivergentTyper(typer.Typer):
    """typer.Typer whose commands and groups are divergent's (:class:`DivergentCommand`, :class:`Group`):
    every command of the CLI is made through it, so they all share one help shape."""

    def __init__(self, *, cls: type[TyperGroup] | None = None, **options: Any) -> None:
        options.setdefault("add_completion", False)
        options.setdefault("pretty_exceptions_enable", False)
        options.setdefault("context_settings", {"help_option_names": ["-h", "--help"]})
        super().__init__(cls=cls or Group, **options)

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None,
                **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        register = super().command(name, cls=cls or DivergentCommand, **options)

        def decorator(function: Callable[..., Any]) -> Callable[..., Any]:
            register(with_json_flag(function))
            return function

        return decorator


app = DivergentTyper(
    name="divergent",
    help="Find where programs that should behave the same do not.",
    no_args_is_help=True,
)


def _print_version(value: bool) -> None:
    if value:
        from divergent import __version__

        print(f"divergent {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", "-V", help="Print the version and exit.", is_eager=True,
                                          callback=_print_version)] = False,
) -> None:
    """Find where programs that should behave the same do not."""

EXIT_SAME, EXIT_DIVERGENT, EXIT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3
#: no difference, but too few valid inputs were judged to say the programs agree (``too-few-inputs``)
EXIT_TOO_FEW_INPUTS = 4
#: Ctrl-C, as shells report it
EXIT_INTERRUPTED = 130


def exit_code(report: Any, *, clustering: bool = False) -> int:
    """The exit code of a search's report (docs/cli.md, "Exit codes"): 130 interrupted (whatever
    was found before), 1 a difference confirmed in the reference mode (``check``; a ``clustering``'s
    classes, however many, exit 0), 4 too few inputs to tell, 0 no difference (enough inputs, a
    proof or the whole input space)."""
    from divergent.records import ExitReason, Verdict

    if report.exit_reason is ExitReason.INTERRUPTED:
        return EXIT_INTERRUPTED
    if report.verdict is Verdict.DIVERGENT:
        return EXIT_SAME if clustering else EXIT_DIVERGENT
    return EXIT_TOO_FEW_INPUTS if report.verdict is Verdict.TOO_FEW_INPUTS else EXIT_SAME


#: whether the running command prints JSON (then an internal error is a JSON object too)
_json_output = False

#: when this module was imported (``time.monotonic()``): the start of the command when the
#: process's own start cannot be read
_IMPORTED = time.monotonic()


#: whether this process is the ``divergent`` program (``main``), not a host that runs commands in
#: process (a test's CliRunner, a notebook): only then does the budget count from the process's start
_PROGRAM = {"entered": False}


def enter_program() -> None:
    """Called by the program's entry point: from now on ``--budget`` counts from the process's start."""
    _PROGRAM["entered"] = True


def process_started() -> float:
    """When the command's time began, as a ``time.monotonic()`` value: for the ``divergent`` program
    the process's start, so start-up and imports count against ``--budget`` too (read from
    ``/proc`` on Linux; elsewhere, when the CLI loaded); for commands run in process, now."""
    if not _PROGRAM["entered"]:
        return time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as stream:
            fields = stream.read().rsplit(b")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 of stat(5), counted from after the command name
        with open("/proc/uptime", "rb") as stream:
            uptime = float(stream.read().split()[0])
        age = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return _IMPORTED
    if not 0 <= age < 60:
        return _IMPORTED  # clocks that do not agree: count from the CLI's start
    return time.monotonic() - age


def fail(message: str, *, as_json: bool = False) -> typer.Exit:
    """Report an input error the contract's way, exit 2: one line on stderr, the message's first (its
    reason); then its further lines as they are (details: each program's compiler output), escaped
    for the terminal. With JSON, one object: ``error`` the reason, ``details`` the rest."""
    first, _, rest = message.strip().partition("\n")
    reason = printable(" ".join(first.split()))
    from divergent.cli.config import configured_in

    details = "\n".join(filter(None, [rest.rstrip(), *configured_in(reason)]))
    print(f"divergent: error: {reason}", file=sys.stderr)
    if details:
        print(printable(details), file=sys.stderr)
    if as_json:
        document: dict[str, Any] = {"verdict": "error", "error": reason, "counterexample": None}
        if details:
            document["details"] = details
        _print_to_stdout(json.dumps(document))
    return typer.Exit(EXIT_ERROR)


@contextmanager
def input_errors(as_json: bool) -> Any:
    global _json_output
    _json_output = _json_output or as_json
    try:
        yield
    except DivergentError as error:
        raise fail(str(error), as_json=as_json) from None


def internal_error(error: BaseException) -> int:
    """Report a failure of divergent itself: one line on stderr (and, for a command printing JSON,
    one JSON object with verdict "error"), never a verdict; the exit code 3."""
    message = " ".join(str(error).split())[:300]
    line = printable(f"internal error: {type(error).__name__}{': ' + message if message else ''}")
    print(f"divergent: {line} (a failure of divergent, not a finding about the programs; please report it)",
          file=sys.stderr)
    if _json_output:
        _print_to_stdout(json.dumps({"verdict": "error", "error": line, "internal": True, "counterexample": None}))
    return EXIT_INTERNAL


def _print_to_stdout(line: str) -> None:
    """An error's JSON object on stdout; a stdout that refuses it (``> /dev/full``) leaves the line
    on stderr as the only word."""
    try:
        print(line, flush=True)
    except OSError:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def run_app(argv: list[str] | None = None) -> int:
    """Run the application; its exit code. Usage and input errors exit 2 with their one line,
    Ctrl-C exits 130, and every other exception is an internal error: exit 3, never a verdict."""
    _log_to_stderr()
    try:
        result = app(args=argv, standalone_mode=False)
    except (typer.Abort, KeyboardInterrupt):
        print("divergent: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # noqa: BLE001 - the boundary: a bug must not look like a verdict
        from divergent.cli.usage import UsageError, usage_error_text, wants_json

        if isinstance(error, UsageError):  # raised by a command itself (typer.BadParameter...)
            reason, details = usage_error_text(error)
            return int(fail(f"{reason}\n{details}" if details else reason,
                            as_json=_json_output or wants_json(argv or [])).exit_code)
        return internal_error(error)
    return result if isinstance(result, int) else EXIT_SAME


def leave(code: int) -> NoReturn:
    """End the program with ``code`` once its output is out and its exit handlers ran (the workers'
    clean-up, the cgroups' removal), without the interpreter's slow tear-down of every module
    (tens of milliseconds of a quick answer). A program with a thread still working leaves the
    ordinary way, which waits for it."""
    if any(thread.is_alive() and not thread.daemon for thread in threading.enumerate()
           if thread is not threading.main_thread()):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def make_console(*, stderr: bool = False, quiet: bool = False) -> Console:
    """A console for human-readable output: control characters in what it prints are escaped."""
    from rich.console import Console  # (a command printing JSON never loads rich)

    from divergent.report.terminal import EscapeControls

    console = Console(stderr=stderr, quiet=quiet)
    console.push_render_hook(EscapeControls())
    return console


def stderr_console(quiet: bool) -> Console:
    return make_console(stderr=True, quiet=quiet)


class _PrintableFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def _log_to_stderr() -> None:
    """divergent's warnings on stderr, control characters escaped (a model's or a program's text
    may be part of a message)."""
    logger = logging.getLogger("divergent")
    if not any(isinstance(h.formatter, _PrintableFormatter) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setLevel(logging.WARNING)
        handler.setFormatter(_PrintableFormatter("divergent: %(levelname)s: %(message)s"))
        logger.addHandler(handler)


def _progress_display(console: Console, *, elapsed: bool = True) -> Any:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns: list[Any] = [TextColumn("[cyan]{task.description}"), BarColumn(bar_width=20),
                          TextColumn("{task.fields[count]}")]
    if elapsed:
        columns.append(TimeElapsedColumn())
    columns += [TextColumn("eta"), TimeRemainingColumn(compact=True), TextColumn("[dim]{task.fields[note]}")]
    return Progress(*columns, console=console, transient=True, refresh_per_second=8)


@contextmanager
def progress_bar(
    console: Console, description: str, total: float | None = None, *, enabled: bool = True, unit: str = ""
) -> Iterator[Callable[..., None]]:
    """A progress bar with counts and an ETA on ``console`` (stderr) while it is a terminal; quiet
    when ``enabled`` is False (``--json``, ``--quiet``) or the output is piped. Yields
    ``update(completed=None, total=None, advance=0, note="")``. For every long command: incoherence,
    the benchmarks (``divergent bench ...``), the searches' budget."""
    if not enabled or not console.is_terminal:
        yield lambda **_: None
        return
    display = _progress_display(console)
    task = display.add_task(description, total=total, count="", note="")
    suffix = f" {unit}" if unit else ""

    def update(*, completed: float | None = None, total: float | None = None, advance: float = 0,
               note: str | None = None, description: str | None = None) -> None:
        changes: dict[str, Any] = {}
        if total is not None:
            changes["total"] = total
        if completed is not None:
            changes["completed"] = completed
        if note is not None:
            changes["note"] = note
        if description is not None:
            changes["description"] = description
        display.update(task, advance=advance or None, **changes)
        current = display.tasks[0]
        shown_total = f"/{current.total:,.0f}" if current.total is not None else ""
        display.update(task, count=f"{current.completed:,.0f}{shown_total}{suffix}")

    with display:
        yield update


def phase_lines(every: float = 2.0) -> Callable[[Any], None]:
    """A search's progress as lines on stderr (``--verbose``): one when its phase changes
    (searching, confirming, shrinking...) and one every ``every`` seconds within a phase, with the
    time and the counts; lines, not a live display, so a log or a pipe keeps them."""
    last: dict[str, Any] = {"phase": None, "at": 0.0}

    def update(progress: Any) -> None:
        if progress.phase == last["phase"] and progress.seconds - last["at"] < every:
            return
        last.update(phase=progress.phase, at=progress.seconds)
        with contextlib.suppress(OSError):
            print(f"divergent: {progress.seconds:6.1f} s  {progress.phase}: {progress.inputs:,} inputs, "
                  f"{progress.executions:,} executions", file=sys.stderr, flush=True)

    return update


def live_progress(console: Console, enabled: bool) -> tuple[Callable | None, Callable[[], None]]:
    """A progress callback for a search (a bar over its time budget, with its counts), and a
    function to stop it; None when the display is off or not a terminal."""
    if not enabled or not console.is_terminal:
        return None, lambda: None
    display = _progress_display(console, elapsed=False)
    task = display.add_task("searching", total=None, count="", note="")
    display.start()

    def update(progress: Any) -> None:
        note = f"{progress.inputs:,} inputs · {progress.executions:,} executions"
        if console.width >= 120:  # the engines' counts too, when there is room
            note += " · " + ", ".join(f"{s.name} {s.inputs:,}" for s in progress.engines if not s.stopped)
        budget = progress.budget_seconds
        display.update(
            task, description=progress.phase, total=budget, completed=min(progress.seconds, budget or progress.seconds),
            count=f"{progress.seconds:.0f}/{budget:g} s" if budget else f"{progress.seconds:.0f} s", note=note,
        )

    return update, display.stop
