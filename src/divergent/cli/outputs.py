"""What a command prints and the files it writes besides its terminal output: the searching
commands' group of output options (:class:`OutputGroup`), the JSON document (``--json`` on stdout,
``--json-file FILE``), the HTML report (``--html``), the reproducing test (``--emit-test``), and a
report kept in the store (``--store``/``--db``).

Their one-line notices go to stderr, so ``--json`` output on stdout stays one object."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from divergent.cli.option_groups import OptionGroup
from divergent.errors import DivergentError, InvalidArgument
from divergent.values import printable

if TYPE_CHECKING:
    from rich.console import Console

#: ``--json``'s help, the same on every command that prints a JSON document
JSON_HELP = "Print the result as JSON on stdout (the documented contract) instead of the report."
#: ``--json-file``'s help
JSON_FILE_HELP = "Also write the JSON result to FILE (- prints it on stdout, as --json does)."


@dataclass(frozen=True)
class OutputGroup(OptionGroup):
    """How a searching command shows its result and what it keeps."""

    panel = "Output"

    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False
    json_file: Annotated[Path | None, typer.Option("--json-file", metavar="FILE", help=JSON_FILE_HELP)] = None
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live display; only the result.")] = False
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="More detail (the counterpart of -q): a line on stderr per phase of the search "
        "(in place of the live display), and after the report the shrinking steps and the settings that are "
        "not defaults, with where each came from.")] = False
    html: Annotated[Path | None, typer.Option(
        "--html", metavar="FILE", help="Also write a self-contained HTML report (charts, no network) here.")] = None
    store: Annotated[bool, typer.Option(
        "--store", help="Keep the report in the store: `divergent report RUN` shows it again.")] = False
    db: Annotated[Path | None, typer.Option(
        "--db", metavar="PATH", help="The store for --store (default: $DIVERGENT_HOME or "
        "~/.local/share/divergent); implies --store.")] = None

    @property
    def prints_json(self) -> bool:
        """Whether the JSON document takes stdout (``--json``, ``--json-file -``)."""
        return self.as_json or (self.json_file is not None and str(self.json_file) == "-")

    @property
    def quiet_display(self) -> bool:
        """No live display and no notes on stdout's behalf: quiet, or JSON on stdout."""
        return self.quiet or self.prints_json

    def apply(self, options: Any, flags: Any) -> Any:
        if self.quiet and self.verbose:
            raise InvalidArgument("--quiet and --verbose: choose one")
        return options

    def check_paths(self, *more: tuple[str, Path | None]) -> None:
        """Before any work: the files to write can be written, and stdout can take the result."""
        json_file = None if self.json_file is not None and str(self.json_file) == "-" else self.json_file
        check_stdout()
        check_output_paths(("--json-file", json_file), ("--html", self.html), *more)
        if self.store or self.db is not None:
            check_store_path(self.db)

    def write_json(self, document: dict[str, Any], delivery: Delivery) -> None:
        """The document on stdout (``--json``) or in ``--json-file``."""
        text = json.dumps(document, ensure_ascii=False)
        if self.prints_json:
            delivery.to_stdout(lambda: print(text))
        if self.json_file is not None and str(self.json_file) != "-":
            delivery.to_file("--json-file", self.json_file, text + "\n", written="JSON written to {path}")


def verbose_lines(document: dict[str, Any]) -> str:
    """What ``--verbose`` adds after the report: the shrinking steps, and the settings that are not
    divergent's defaults with where each came from (a flag, the project's pyproject.toml)."""
    lines = []
    cx = document.get("counterexample") or {}
    steps = list(cx.get("shrink_steps") or [])
    if steps:
        program = "stdin" in cx
        first = cx.get("original_stdin") if program else cx.get("original_call")
        lines.append(f"shrinking ({len(steps)} step{'s' if len(steps) != 1 else ''}, each confirmed):")
        for number, step in enumerate([first, *steps]):
            text = str(step)
            shown = " ⏎ ".join(text.splitlines()) + (" ⏎" if program and text.endswith("\n") else "")
            lines.append(f"  {number:>3}  {shown if len(shown) <= 160 else shown[:159] + '…'}")
    chosen = {name: setting for name, setting in (document.get("settings") or {}).items()
              if setting.get("from") != "default" and name != "verbose"}
    if chosen:
        lines.append("settings (not defaults):")
        width = max(len(name) for name in chosen)
        for name, setting in chosen.items():
            where = setting["from"] + (f" {setting['key']}" if setting.get("key") else "")
            lines.append(f"  --{name.ljust(width)}  {setting['value']!r}  ({where})")
    else:
        lines.append("settings: divergent's defaults (no flag or pyproject.toml changed one)")
    return printable("\n".join(lines))


#: the kernel's file systems: views of processes, devices and settings, never a place for a file
_KERNEL_FILE_SYSTEMS = frozenset({
    "proc", "sysfs", "debugfs", "tracefs", "securityfs", "configfs", "cgroup", "cgroup2", "bpf", "pstore",
    "efivarfs", "fusectl", "devpts", "mqueue", "binfmt_misc", "autofs", "rpc_pipefs", "nsfs", "hugetlbfs",
})  # fmt: skip
#: /dev/full (Linux's major 1, minor 7): every write to it fails with "no space left on device"
_DEV_FULL = os.makedev(1, 7)


def check_output_paths(*options: tuple[str, Path | None]) -> None:
    """Before any work: each output file can be written (a typo, a directory, a device or a
    read-only place costs no search). ``-`` (stdout) is checked as stdout."""
    for option, path in options:
        if path is None:
            continue
        problem = stdout_problem() if str(path) == "-" else output_problem(path)
        if problem is not None:
            raise InvalidArgument(f"{option} {path}: {problem}")


def check_stdout(what: str = "the result") -> None:
    """Before any work: stdout can take ``what`` (it is not ``/dev/full``)."""
    problem = stdout_problem()
    if problem is not None:
        raise InvalidArgument(f"stdout cannot take {what}: {problem}")


def output_problem(path: Path) -> str | None:
    """Why an output file cannot be written at ``path``, when that can be told without writing it;
    None when it looks writable."""
    try:
        info: os.stat_result | None = path.stat()
    except FileNotFoundError:
        info = None
    except OSError as error:
        return f"cannot use it ({error.strerror or error})"
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            return "a directory; give a file name"
        if stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode):
            return _device_problem(info)  # /dev/null, a terminal, a pipe: they take what is written
    parent = path.resolve().parent
    if not parent.is_dir():
        return f"no directory {path.parent}"
    kind = file_system_type(parent)
    if kind in _KERNEL_FILE_SYSTEMS:
        return f"{parent} is the kernel's {kind} file system, which holds no files of yours"
    if info is not None and not os.access(path, os.W_OK):
        return "cannot write it (permission denied)"
    if info is None and not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot create a file in {parent} (permission denied)"
    with contextlib.suppress(OSError):
        if os.statvfs(parent).f_flag & os.ST_RDONLY:
            return f"{parent} is on a read-only file system"
    return None


def stdout_problem() -> str | None:
    """Why stdout cannot take output, when that can be told without writing (``> /dev/full``)."""
    try:
        info = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture): it takes anything
        return None
    return _device_problem(info) if stat.S_ISCHR(info.st_mode) else None


def _device_problem(info: os.stat_result) -> str | None:
    return "it is /dev/full, which takes no data" if stat.S_ISCHR(info.st_mode) and info.st_rdev == _DEV_FULL else None


def file_system_type(directory: Path) -> str | None:
    """The type of the file system ``directory`` is on (``ext4``, ``proc``...), from the mount
    table; None where there is none to read."""
    mounts = _mount_table()
    if mounts is None:
        return None
    real = os.path.realpath(directory)
    best, kind = "", None
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fields[2]
    return kind


@functools.cache
def _mount_table() -> str | None:
    """The process's mount table, read once (the outputs of one command are checked together)."""
    try:
        return Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def check_store_path(db: Path | None) -> None:
    """Before any work: the store asked for (``--store``, ``--db``) can be created or written."""
    from divergent.store import default_store_path

    path = db if db is not None else default_store_path()
    problem = output_problem(path) if path.exists() or path.resolve().parent.is_dir() else None
    if problem is not None:
        raise InvalidArgument(f"--db {path}: {problem}")


class Delivery:
    """A finished command's outputs: its result on stdout, its files, the stored run.

    What is found is never lost to an output that fails at the end (a full disk, a file removed
    meanwhile): each write that fails is said on stderr (``divergent: error: could not write --html
    FILE: ...``) after the others were made, and when stdout could not take the result it is
    printed on stderr instead (``result``: the plain report). The exit code stays the command's:
    the verdict does not change because a file could not be written."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self.failed: list[str] = []
        self.stdout_failed = False
        self._notices: Console | None = None

    def notices(self) -> Console:
        """stderr's console, for the one-line notices (quiet with ``--quiet``); made on first use."""
        if self._notices is None:
            from divergent.cli.application import stderr_console

            self._notices = stderr_console(self.quiet)
        return self._notices

    def note(self, text: str) -> None:
        self.notices().print(text, highlight=False, soft_wrap=True)

    def to_stdout(self, write: Callable[[], object]) -> bool:
        """Run ``write`` (what prints the result on stdout) and flush; False when stdout refused it."""
        try:
            write()
            sys.stdout.flush()
        except OSError as error:
            self.stdout_failed = True
            self.failed.append(f"could not write the result to stdout ({error.strerror or error})")
            _drop_stdout()
            return False
        return True

    def to_file(self, option: str, path: Path, text: str, *, written: str = "") -> bool:
        """Write ``text`` to ``path`` (``option`` names it in messages); ``written``: the notice
        once it is (``{path}`` is replaced)."""
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            self.failed.append(f"could not write {option} {path} ({error.strerror or error})")
            return False
        if written:
            self.note(written.format(path=path))
        return True

    def html(self, page: Any, path: Path) -> bool:
        """Render ``page`` (a :class:`divergent.report.blocks.Page`) and write it to ``path``."""
        from divergent.report.html import render_html

        return self.to_file("--html", path, render_html(page), written="HTML report written to {path}")

    def attempt(self, what: str, action: Callable[[], object]) -> bool:
        """Run ``action`` (keeping the report in the store, say); an error of divergent's kind
        (a locked store) is said like a failed write."""
        try:
            action()
        except (DivergentError, OSError) as error:
            self.failed.append(f"could not {what} ({' '.join(str(error).split())})")
            return False
        return True

    def finish(self, result: Callable[[], str]) -> None:
        """Say what could not be written; print ``result()`` on stderr when stdout could not take it."""
        if not self.failed:
            return
        if self.stdout_failed:
            with contextlib.suppress(OSError):
                print(result(), file=sys.stderr)
        for line in self.failed:
            with contextlib.suppress(OSError):
                print(f"divergent: error: {printable(line)}", file=sys.stderr)


def _drop_stdout() -> None:
    """After stdout refused a write: what is left in its buffer and what is printed later go
    nowhere (else the interpreter's last flush reports the same failure as a traceback)."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def keep_report(kind: str, document: dict[str, Any], db: Path | None, delivery: Delivery, *,
                test: str | None = None, command: dict[str, Any] | None = None) -> str | None:
    """Store a check or cluster report (a run interrupted by Ctrl-C as "interrupted"; the same
    ``command`` run again completes that run); says how to show it again (even with ``--quiet``:
    it was asked for); returns the run id (None when the store could not take it)."""
    from divergent.report.stored import interrupted_run, save_report
    from divergent.store import Store

    status = "interrupted" if document.get("exit_reason") == "interrupted" else "finished"
    kept: list[tuple[Any, Any]] = []

    def store() -> None:
        with Store(db) as opened:
            resumed = interrupted_run(opened, kind, command) if command is not None else None
            kept.append((save_report(opened, kind, document, test=test, status=status, command=command), resumed))

    if not delivery.attempt("keep the report in the store", store):
        return None
    run, resumed = kept[0]
    where = f" --db {db}" if db is not None else ""
    how = f"report stored as run {run.short_id}" + (" (interrupted: the same command resumes it)"
                                                    if status == "interrupted" else "")
    if resumed is not None:
        how += f" (resumes the interrupted run {resumed.short_id})"
    with contextlib.suppress(OSError):
        print(f"{how}: divergent report {run.short_id}{where}", file=sys.stderr)
    return run.short_id


#: options a resumed run may change: how long it searches ("raise --budget" and run it again)
_RESUMED_WITH_ANOTHER = {("search", "budget"), ("search", "executions")}


def command_identity(command: str, implementations: list[str], flags: Any) -> dict[str, Any]:
    """What a searching command ran, as plain JSON (the programs as given, from which directory,
    and every option but the output's and the budget's): a stored run interrupted with the same
    identity is resumed."""
    import dataclasses
    import os

    options: dict[str, Any] = {}
    for group in dataclasses.fields(flags):
        if group.name == "outputs":
            continue
        for name, value in dataclasses.asdict(getattr(flags, group.name)).items():
            if (group.name, name) in _RESUMED_WITH_ANOTHER:
                continue
            options[f"{group.name}.{name}"] = value if isinstance(value, bool | int | float | type(None)) else str(value)
    return {"command": command, "directory": os.getcwd(), "implementations": list(implementations), "options": options}
