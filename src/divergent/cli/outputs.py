"""The files a command writes besides its terminal output: the HTML report (``--html``), the
reproducing test (``--emit-test``), and a report kept in the store (``--store``/``--db``).

Their one-line notices go to stderr, so ``--json`` output on stdout stays one object."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from divergent.errors import InvalidArgument

if TYPE_CHECKING:
    from rich.console import Console


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


def keep_report(kind: str, document: dict[str, Any], db: Path | None, console: Console, *, test: str | None = None) -> str:
    """Store a check or cluster report; says how to show it again; returns the run id."""
    from divergent.report.stored import save_report
    from divergent.store import Store

    with Store(db) as store:
        run = save_report(store, kind, document, test=test)
        where = f" --db {db}" if db is not None else ""
    console.print(f"report stored as run {run.short_id}: divergent report {run.short_id}{where} --html FILE",
                  highlight=False, soft_wrap=True)
    return run.id
