"""What every harness command shares (``divergent bench NAME``, ``divergent incoherence``): one shape.

Each harness is a group with ``run`` (work the dataset, or resume the stored run with the same
options), ``show RUN`` (report a stored run again, running nothing) and ``list`` (the stored
runs); CETBench adds ``generate``. They take the same options for the same things:

* ``--json`` (the results envelope on stdout in place of the tables) and ``--json-file FILE``
  (written there; ``-`` is stdout), as on every command (:func:`divergent.cli.application.with_json_flag`:
  the older ``--json FILE`` is still read), ``--html FILE``, ``-q/--quiet`` (no progress bar, no
  notes on stderr), ``--db`` (the store);
* ``-j/--jobs``, ``--executor threads|ray``, ``--address`` (where the items are worked on:
  :mod:`divergent.executors`), ``--isolation``;

and the same progress bar (:func:`divergent.cli.application.progress_bar`), store and table layout (tables
fit the terminal: :mod:`divergent.report.tables`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from divergent.cli.application import (
    EXIT_INTERRUPTED,
    JSON_FILE_HELP,
    DefaultRunGroup,
    DivergentTyper,
    input_errors,
    make_console,
    progress_bar,
)

if TYPE_CHECKING:
    from divergent.bench.common import ItemProgress
    from divergent.executors.settings import ExecutorSettings
    from divergent.store import RunRecord, Store

__all__ = [
    "AddressOpt",
    "ExecutorOpt",
    "HtmlOpt",
    "IsolationOpt",
    "JobsOpt",
    "JsonOpt",
    "QuietOpt",
    "StoreOpt",
    "StoredRuns",
    "add_stored_run_commands",
    "check_outputs",
    "executor_settings",
    "harness_group",
    "interrupted",
    "item_progress",
    "no_model_flags",
    "open_store",
    "prints_json",
    "usage_line",
    "write_outputs",
]

_WHERE = "Where the work runs"

#: the results file (``-``: stdout); the ``--json`` flag (stdout) is added beside it to every command
#: that takes it (:func:`divergent.cli.application.with_json_flag`), which receives both as ``as_json``
JsonOpt = Annotated[Path | None, typer.Option("--json-file", help=JSON_FILE_HELP, metavar="FILE")]
HtmlOpt = Annotated[Path | None, typer.Option(
    "--html", help="Write a self-contained HTML report to FILE.", metavar="FILE")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no notes on stderr.")]
StoreOpt = Annotated[Path | None, typer.Option(
    "--db", help="SQLite store (default: $DIVERGENT_HOME or ~/.local/share/divergent).", metavar="FILE")]
JobsOpt = Annotated[int | None, typer.Option(
    "--jobs", "-j", min=1, help="Items worked on at the same time (default: 1; with --executor ray, the "
    "cluster's CPUs).", rich_help_panel=_WHERE)]
ExecutorOpt = Annotated[str, typer.Option(
    "--executor", help="threads (this machine) or ray (a Ray cluster: divergent\\[ray]).", rich_help_panel=_WHERE)]
AddressOpt = Annotated[str | None, typer.Option(
    "--address", help="With --executor ray: the cluster (HOST:PORT, auto, ray://HOST:10001); default: start "
    "a local instance.", rich_help_panel=_WHERE)]
IsolationOpt = Annotated[str | None, typer.Option(
    "--isolation", help="bubblewrap, unshare or rlimits (default: the strongest this machine has).",
    rich_help_panel=_WHERE)]


def harness_group(help: str, *, legacy_commands: dict[str, str] | None = None) -> DivergentTyper:
    """A harness's group of commands (``run``, ``show``, ``list``), which still reads the older
    form that put ``run``'s options right after its name."""
    group_class = type("HarnessGroup", (DefaultRunGroup,), {"legacy_commands": dict(legacy_commands or {})})
    return DivergentTyper(help=help, no_args_is_help=True, cls=group_class)


def open_store(db: Path | None, *, create: bool = True) -> Store:
    """The store (``--db``, else the default); read-only commands pass ``create=False``, so a
    mistyped path is an input error and no empty store is left there."""
    from divergent.store import Store

    return Store(db, create=create)


def executor_settings(executor: str, address: str | None, jobs: int | None) -> ExecutorSettings:
    """The ``--executor``/``--address``/``--jobs`` options, checked before anything is stored (Ray
    installed, a cluster answering at the address)."""
    from divergent.executors.settings import ExecutorSettings

    settings = ExecutorSettings.parse(executor, address, jobs)
    settings.check()
    return settings


@contextmanager
def item_progress(console: Console, label: str, *, quiet: bool) -> Iterator[Callable[..., None]]:
    """The one progress bar of the harnesses, fed with :class:`~divergent.bench.common.ItemProgress`
    snapshots (``update(progress, description=None)``)."""
    with progress_bar(console, label, enabled=not quiet) as update:

        def show(progress: ItemProgress, description: str | None = None) -> None:
            update(completed=progress.done, total=progress.total, description=description,
                   note=f"{progress.failed} failed" if progress.failed else "")

        yield show


def interrupted(what: str) -> typer.Exit:
    """Ctrl-C during a run: say what is kept and how to resume (on stderr, even with --quiet); the
    exit (130) to raise."""
    make_console(stderr=True).print(f"[yellow]interrupted: {what}; run the same command to resume[/yellow]",
                                    soft_wrap=True)
    return typer.Exit(EXIT_INTERRUPTED)


def check_outputs(as_json: Path | None, html: Path | None) -> None:
    """Before any work: the output files can be written and stdout can take the result (a typo,
    a directory or a device costs no run)."""
    from divergent.cli.outputs import check_output_paths, check_stdout

    check_stdout()
    check_output_paths(*((name, path) for name, path in (("--json-file", as_json), ("--html", html))
                         if path is not None and str(path) != "-"))


def prints_json(as_json: Path | None) -> bool:
    """Whether ``--json`` (or ``--json-file -``) asked for the document on stdout (then no tables
    are printed)."""
    return as_json is not None and str(as_json) == "-"


def write_outputs(document: dict[str, Any], as_json: Path | None, html: Path | None,
                  page: Callable[[dict[str, Any]], Any] | None, *, quiet: bool = False,
                  again: str = "") -> None:
    """The JSON document (``--json-file``, or stdout for ``--json``) and the ``--html`` page built by
    ``page``. A file that cannot be written at the end is said on stderr, with ``again`` (the
    command that writes it from the store), and the run's exit code stays what it was."""
    from divergent.bench.common import plain_json
    from divergent.cli.config import settings_origins
    from divergent.cli.outputs import Delivery

    settings = settings_origins()  # each option of the command, and where it came from
    if settings:
        document = {**document, "settings": settings}
    delivery = Delivery(quiet)
    if as_json is not None:
        text = json.dumps(plain_json(document), indent=1 if prints_json(as_json) else 2, ensure_ascii=False)
        if prints_json(as_json):
            delivery.to_stdout(lambda: print(text))
        else:
            delivery.to_file("--json-file", as_json, text + "\n", written="results written to {path}")
    if html is not None:
        from divergent.errors import InvalidArgument

        if page is None:
            raise InvalidArgument("--html: this command has no HTML report")
        try:
            built = page(document)
        except ImportError as error:
            raise InvalidArgument(f"--html: HTML reports are not available here ({error})") from None
        delivery.html(built, html)
    if again and delivery.failed:
        delivery.failed.append(f"the run is stored: {again} writes them again")
    delivery.finish(lambda: json.dumps(plain_json(document), indent=1, ensure_ascii=False))


def usage_line(usage: dict[str, Any], price_known: bool = True) -> str:
    tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
    cost = f"${usage.get('cost', 0.0):.4f}" if price_known else "cost unknown (no price for this model)"
    return (f"{usage.get('calls', 0)} model calls ({usage.get('cached_calls', 0)} from the cache), "
            f"{tokens:,} tokens, {cost}")


def no_model_flags(why: str, **flags: Any) -> None:
    """Refuse language-model options where no model is used (``why``: what uses none)."""
    from divergent.errors import InvalidArgument

    given = [f"--{name.replace('_', '-')}" for name, value in flags.items() if value not in (None, False)]
    if given:
        raise InvalidArgument(f"{why} uses no model: drop {', '.join(given)}")


# -- show and list ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredRuns:
    """How a harness's stored runs are listed and shown again."""

    #: "EquiBench"
    title: str
    #: the store's kinds of its runs
    kinds: tuple[str, ...]
    #: the columns of ``list`` after run, status, created and units
    columns: tuple[str, ...]
    row: Callable[[RunRecord], tuple[str, ...]]
    #: ``show``: (console, store, the runs or files asked for, --json, --html, quiet) → prints and writes
    show: Callable[[Console, Store, Sequence[str], Path | None, Path | None, bool], None]
    #: what ``show`` takes
    show_help: str = "Run id (or a unique prefix)."


def single_run(store: Store, references: Sequence[str], title: str) -> RunRecord:
    """The one stored run ``show`` was given, for a harness whose report covers one run."""
    from divergent.errors import InvalidArgument

    if len(references) != 1:
        raise InvalidArgument(f"show one {title} run at a time")
    return store.get_run(references[0])


def add_stored_run_commands(group: typer.Typer, runs: StoredRuns) -> None:
    """``show`` and ``list`` for a harness's group."""

    def show(
        references: list[str],
        as_json: JsonOpt = None,
        html: HtmlOpt = None,
        quiet: QuietOpt = False,
        db: StoreOpt = None,
    ) -> None:
        from divergent.errors import InvalidArgument
        from divergent.store import NoStore

        with input_errors(prints_json(as_json)):
            check_outputs(as_json, html)
            try:
                store = open_store(db, create=False)
            except NoStore as error:
                raise InvalidArgument(f"no run {' '.join(references)!r}: {error}") from None
        with input_errors(prints_json(as_json)), store:
            runs.show(make_console(quiet=prints_json(as_json)), store, references, as_json, html, quiet)

    # (set here: an annotation of this module is a string read in its globals, where ``runs`` is not)
    show.__annotations__["references"] = Annotated[list[str], typer.Argument(help=runs.show_help, metavar="RUN...")]
    group.command("show", help=f"Print a stored {runs.title} run again (nothing runs).")(show)

    @group.command("list", help=f"The stored {runs.title} runs.")
    def list_runs(db: StoreOpt = None) -> None:
        from divergent.report.tables import fitted
        from divergent.store import NoStore

        with input_errors(False):
            try:
                store = open_store(db, create=False)
            except NoStore as error:
                if db is not None:
                    raise
                make_console().print(f"no stored {runs.title} runs yet ({error})", highlight=False, soft_wrap=True)
                return
        with input_errors(False), store:
            records = [record for kind in runs.kinds for record in store.list_runs(kind)]
            table = Table(title=f"{runs.title} runs in {store.path}")
            for column in ("run", "status", "created", "units", *runs.columns):
                table.add_column(column)
            for record in sorted(records, key=lambda r: r.created, reverse=True):
                table.add_row(record.short_id, record.status, record.created[:16].replace("T", " "), str(record.unit_count),
                              *runs.row(record))
            make_console().print(fitted(table))
