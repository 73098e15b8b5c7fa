"""What a command prints and the files it writes besides its terminal output: the searching
commands' group of output options (:class:`OutputGroup`), the JSON document (``--json`` on stdout,
``--json-file FILE``), the HTML report (``--html``), the reproducing test (``--emit-test``), and a
report kept in the store (``--store``/``--db``).

Their one-line notices go to stderr, so ``--json`` output on stdout stays one object."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from divergent.cli.option_groups import OptionGroup
from divergent.errors import InvalidArgument

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

    def check_paths(self, *more: tuple[str, Path | None]) -> None:
        """Before any work: the files to write can be written (their directories exist)."""
        json_file = None if self.prints_json else self.json_file
        check_output_paths(("--json-file", json_file), ("--html", self.html), *more)

    def write_json(self, document: dict[str, Any], console: Console) -> None:
        """The document on stdout (``--json``) or in ``--json-file``."""
        if self.prints_json:
            print(json.dumps(document, ensure_ascii=False))
        elif self.json_file is not None:
            write_text_file(self.json_file, json.dumps(document, ensure_ascii=False) + "\n", "--json-file")
            console.print(f"JSON written to {self.json_file}", highlight=False, soft_wrap=True)


def check_output_paths(*options: tuple[str, Path | None]) -> None:
    """Before any work: each output file's directory must exist (a typo costs no search)."""
    for option, path in options:
        if path is not None and not path.resolve().parent.is_dir():
            raise InvalidArgument(f"{option} {path}: no directory {path.parent}")
        if path is not None and path.is_dir():
            raise InvalidArgument(f"{option} {path}: a directory; give a file name")


def write_text_file(path: Path, text: str, option: str) -> Path:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InvalidArgument(f"{option} {path}: cannot write it ({error.strerror or error})") from None
    return path


def write_html_report(page: Any, path: Path, console: Console) -> None:
    """Render ``page`` (a :class:`divergent.report.blocks.Page`) to ``path``."""
    from divergent.report.html import write_html

    write_html(page, path)
    console.print(f"HTML report written to {path}", highlight=False, soft_wrap=True)


def keep_report(kind: str, document: dict[str, Any], db: Path | None, console: Console, *, test: str | None = None,
                command: dict[str, Any] | None = None) -> str:
    """Store a check or cluster report (a run interrupted by Ctrl-C as "interrupted"; the same
    ``command`` run again completes that run); says how to show it again; returns the run id."""
    from divergent.report.stored import interrupted_run, save_report
    from divergent.store import Store

    status = "interrupted" if document.get("exit_reason") == "interrupted" else "finished"
    with Store(db) as store:
        resumed = interrupted_run(store, kind, command) if command is not None else None
        run = save_report(store, kind, document, test=test, status=status, command=command)
        where = f" --db {db}" if db is not None else ""
    how = f"report stored as run {run.short_id}" + (" (interrupted: the same command resumes it)"
                                                    if status == "interrupted" else "")
    if resumed is not None:
        how += f" (resumes the interrupted run {resumed.short_id})"
    console.print(f"{how}: divergent report {run.short_id}{where} --html FILE", highlight=False, soft_wrap=True)
    return run.id


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
