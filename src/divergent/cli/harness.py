"""What every harness command shares (``divergent bench NAME``, ``divergent incoherence``): one shape.

Each harness is a group with ``run`` (work the dataset, or resume the stored run with the same
options), ``show RUN`` (report a stored run again, running nothing) and ``list`` (the stored
runs); CETBench adds ``generate``. Each runs one :class:`~divergent.bench.benchmark.Benchmark`, and
they take the same option groups (:mod:`divergent.cli.option_groups`) for the same things:

* :class:`Output`: ``--json`` (the results envelope on stdout in place of the tables) and
  ``--json-file FILE`` (written there; ``-`` is stdout), as on every command
  (:func:`divergent.cli.application.with_json_flag`: the older ``--json FILE`` is still read),
  ``--html FILE``, ``-q/--quiet`` (no progress bar, no notes on stderr), ``--db`` (the store);
* :class:`Where`: ``-j/--jobs``, ``--executor threads|ray``, ``--address`` (where the items are
  worked on: :mod:`divergent.executors`), ``--isolation``;
* :class:`~divergent.cli.llm_options.ModelAccess`: the model, where a model is used;

a benchmark's own options are a group of its command's module whose :meth:`config` builds the
benchmark's options record. :func:`work` runs a benchmark on the store and the executor with the
one progress bar (:func:`divergent.cli.application.progress_bar`), and the stored runs are shown
and listed alike (:func:`add_stored_run_commands`; tables fit the terminal: :mod:`divergent.report.tables`).
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
from divergent.cli.option_groups import OptionGroup, with_option_groups

if TYPE_CHECKING:
    from divergent.bench.benchmark import Benchmark, Worked
    from divergent.bench.common import ItemProgress
    from divergent.cli.llm_options import ModelAccess
    from divergent.executors.settings import ExecutorSettings
    from divergent.llm.chat import ChatModel
    from divergent.store import RunRecord, Store

__all__ = [
    "AddressOpt",
    "ExecutorOpt",
    "GenerateOutput",
    "HtmlOpt",
    "IsolationOpt",
    "JobsOpt",
    "JsonOpt",
    "Output",
    "QuietOpt",
    "Ran",
    "StoreOpt",
    "StoredRuns",
    "Where",
    "add_stored_run_commands",
    "executor_settings",
    "harness_group",
    "interrupted",
    "item_progress",
    "judge_models",
    "open_store",
    "usage_line",
    "work",
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


class _Outputs(OptionGroup):
    """What :class:`Output` and :class:`GenerateOutput` share (their fields are the flags)."""

    as_json: Path | None
    quiet: bool
    db: Path | None

    @property
    def prints_json(self) -> bool:
        """Whether ``--json`` (or ``--json-file -``) asked for the document on stdout (then no tables
        are printed)."""
        return self.as_json is not None and str(self.as_json) == "-"

    @property
    def html_file(self) -> Path | None:
        """The page asked for with ``--html`` (None: no page, or a command without one)."""
        return None

    def check(self) -> None:
        """Before any work: the output files can be written and stdout can take the result (a typo,
        a directory or a device costs no run)."""
        from divergent.cli.outputs import check_output_paths, check_stdout

        check_stdout()
        check_output_paths(*((name, path) for name, path in (("--json-file", self.as_json), ("--html", self.html_file))
                             if path is not None and str(path) != "-"))

    def console(self) -> Console:
        """Where the tables go (nowhere when the document takes stdout)."""
        return make_console(quiet=self.prints_json)

    def notes(self) -> Console:
        """Where the notes go (stderr; nowhere with ``--quiet``)."""
        return make_console(stderr=True, quiet=self.quiet)

    def write(self, document: dict[str, Any], page: Callable[[dict[str, Any]], Any] | None = None, *,
              again: str = "") -> None:
        """The document (``--json``, ``--json-file``) and the page ``page`` draws of it (``--html``);
        :func:`write_outputs`."""
        write_outputs(document, self.as_json, self.html_file, page, quiet=self.quiet, again=again)

    def deliver(self, benchmark: Benchmark[Any, Any], summary: Any, command: str, **page: Any) -> None:
        """The scorer's document of ``summary`` and its page (``page``: the page's options); a file
        that cannot be written at the end names ``COMMAND show RUN``, which writes it again."""
        self.write(benchmark.document(summary), lambda document: benchmark.html(document, **page),
                   again=f"{command} show {summary.run.short_id}")


@dataclass(frozen=True)
class Output(_Outputs):
    """Where a harness's results go: the terminal, a JSON document, an HTML page; and the store."""

    as_json: JsonOpt = None
    html: HtmlOpt = None
    quiet: QuietOpt = False
    db: StoreOpt = None

    @property
    def html_file(self) -> Path | None:
        return self.html


@dataclass(frozen=True)
class GenerateOutput(_Outputs):
    """:class:`Output` without a page (what ``cetbench generate`` writes)."""

    as_json: JsonOpt = None
    quiet: QuietOpt = False
    db: StoreOpt = None


@dataclass(frozen=True)
class Where(OptionGroup):
    """Where the items are worked on, and the sandbox they run in."""

    panel = _WHERE

    jobs: JobsOpt = None
    executor: ExecutorOpt = "threads"
    address: AddressOpt = None
    isolation: IsolationOpt = None

    def __post_init__(self) -> None:
        from divergent.executors.settings import ExecutorSettings

        ExecutorSettings.parse(self.executor, self.address, self.jobs)  # a bad choice is an input error at once

    def settings(self) -> ExecutorSettings:
        """The executor's settings, checked (Ray installed, a cluster answering at the address)."""
        return executor_settings(self.executor, self.address, self.jobs)


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
    snapshots (``update(progress, description=None)``; a progress' label, when it has one, is the
    description)."""
    with progress_bar(console, label, enabled=not quiet) as update:

        def show(progress: ItemProgress, description: str | None = None) -> None:
            update(completed=progress.done, total=progress.total, description=description or progress.label or None,
                   note=f"{progress.failed} failed" if progress.failed else "")

        yield show


def interrupted(what: str) -> typer.Exit:
    """Ctrl-C during a run: say what is kept and how to resume (on stderr, even with --quiet); the
    exit (130) to raise."""
    make_console(stderr=True).print(f"[yellow]interrupted: {what}; run the same command to resume[/yellow]",
                                    soft_wrap=True)
    return typer.Exit(EXIT_INTERRUPTED)


@dataclass(frozen=True)
class Ran:
    """What :func:`work` did: the benchmark's run and its summary (the scorer's, from the store)."""

    worked: Worked
    summary: Any
    #: whether the model's price is known (its cost is then counted)
    price_known: bool = True


def work(benchmark: Benchmark[Any, Any], config: Any, output: _Outputs, where: Where, *, label: str,
         kept: str, models: Callable[[Store], Sequence[ChatModel | None]] | None = None,
         score: Callable[[Store, Any], Any] | None = None) -> Ran:
    """Work ``benchmark`` with ``config`` (resuming its stored run) on the executor ``where`` says
    (checked before anything is stored), with the progress bar (``label``),
    and score it from the store (``score(store, worked)`` in place of the benchmark's scorer of its
    run: a run made of several stored runs). ``models(store)``: the chat and extractor the run asks
    (closed at the end); Ctrl-C says ``kept`` and exits 130."""
    from divergent.bench.benchmark import Workbench
    from divergent.executors.settings import open_executor

    settings = where.settings()
    with open_store(output.db) as store:
        clients = list(models(store)) if models is not None else []
        try:
            with open_executor(settings) as workers, item_progress(output.notes(), label, quiet=output.quiet) as update:
                worked = benchmark.work(config, Workbench(store, workers, *clients, on_progress=update))
        except KeyboardInterrupt:
            raise interrupted(kept) from None
        finally:
            for client in {id(c): c for c in clients if c is not None}.values():
                client.close()
        price_known = clients[0].price_known if clients and clients[0] is not None else True
        summary = score(store, worked) if score is not None else benchmark.summarize(store, worked.run)
        return Ran(worked, summary, price_known)


def judge_models(model: ModelAccess, judge: Any, *,
                 extractor_model: str | None = None) -> Callable[[Store], list[ChatModel | None]]:
    """The models an equivalence judge (``--judge llm|execution|hybrid``) asks, as :func:`work`
    takes them: none for the execution judge (then a model flag is an input error), else the chat
    (none configured is an input error) and the extractor (``extractor_model``: another model at
    the same endpoint)."""
    from divergent.errors import InvalidArgument

    if not judge.needs_model:
        model.refuse("--judge execution (or use --judge hybrid)")

    def models(store: Store) -> list[ChatModel | None]:
        if not judge.needs_model:
            return []
        chat = model.client(store=store)
        if chat is None:
            raise InvalidArgument(f"--judge {judge.value} needs a model: give --model (or --judge execution)")
        return [chat, model.client(store=store, model=extractor_model) if extractor_model is not None else None]

    return models


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
    on_stdout = as_json is not None and str(as_json) == "-"
    if as_json is not None:
        text = json.dumps(plain_json(document), indent=1 if on_stdout else 2, ensure_ascii=False)
        if on_stdout:
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
    #: ``show``: (console, store, the runs or files asked for, the output options) → prints and writes
    show: Callable[[Console, Store, Sequence[str], Output], None]
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

    def show(references: list[str], output: Output) -> None:
        from divergent.errors import InvalidArgument
        from divergent.store import NoStore

        with input_errors(output.prints_json):
            output.check()
            try:
                store = open_store(output.db, create=False)
            except NoStore as error:
                raise InvalidArgument(f"no run {' '.join(references)!r}: {error}") from None
        with input_errors(output.prints_json), store:
            runs.show(output.console(), store, references, output)

    # (set here: an annotation of this module is a string read in its globals, where ``runs`` is not)
    show.__annotations__["references"] = Annotated[list[str], typer.Argument(help=runs.show_help, metavar="RUN...")]
    group.command("show", help=f"Print a stored {runs.title} run again (nothing runs).")(with_option_groups(show))

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
