"""``divergent report [RUN]``: show a stored run again, or write its HTML report; without RUN, list
the stored runs. Stored runs: incoherence studies, the benchmarks' runs and ProbeGen trees (always
stored), diffs, and check and cluster reports kept with ``--store``/``--db``. A benchmark's run is
shown by its :class:`~divergent.bench.benchmark.Benchmark` (its scorer, its page)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from divergent.cli.application import app, input_errors, make_console
from divergent.cli.option_groups import OptionGroup, with_option_groups
from divergent.report.tables import fitted


@dataclass(frozen=True)
class ReportOptions(OptionGroup):
    """What is shown of a stored run and where it goes, and which store."""

    html: Annotated[
        Path | None, typer.Option("--html", help="Write the run's self-contained HTML report to this file.")
    ] = None
    as_json: Annotated[bool, typer.Option("--json", help="Print the stored JSON document (check, cluster, "
                                          "diff, incoherence, a benchmark's) on stdout instead of the summary.")] = False
    json_file: Annotated[Path | None, typer.Option(
        "--json-file", metavar="FILE", help="Also write the stored JSON document to FILE (- prints it on stdout, "
        "as --json does).")] = None
    kind: Annotated[str | None, typer.Option("--kind", help="With no RUN: list only runs of this kind.")] = None
    db: Annotated[Path | None, typer.Option(
        "--db", help="SQLite store (default: $DIVERGENT_HOME or ~/.local/share/divergent).")] = None


@app.command("report")
@with_option_groups
def report_command(
    run: Annotated[str | None, typer.Argument(help="Run id (or a unique prefix); none: list the stored runs.")] = None,
    *,
    options: ReportOptions,
) -> None:
    """Show a stored run (check and cluster with --store, incoherence, probegen, a benchmark's), or write it as HTML."""
    from divergent.cli.outputs import Delivery, check_output_paths, check_stdout
    from divergent.errors import InvalidArgument
    from divergent.store import RUN_KINDS, NoStore, Store

    html, json_file, kind, db = options.html, options.json_file, options.kind, options.db
    console = make_console()
    on_stdout = options.as_json or (json_file is not None and str(json_file) == "-")
    to_file = None if on_stdout else json_file
    with input_errors(on_stdout):
        if kind is not None and kind not in RUN_KINDS:
            raise InvalidArgument(f"--kind {kind!r}: no such kind of run; the kinds: {', '.join(RUN_KINDS)}")
        check_stdout()
        check_output_paths(("--html", html), ("--json-file", to_file))
        try:  # read only: a mistyped --db must not leave an empty store behind
            store = Store(db, create=False)
        except NoStore as error:
            if run is None and db is None:
                console.print(f"no stored runs yet ({error}: check and cluster with --store, incoherence, probegen "
                              "and the benchmarks store their runs there)", highlight=False, soft_wrap=True)
                return
            raise InvalidArgument(f"no run {run!r}: {error}" if run is not None else str(error)) from None
        with store:
            if run is None:
                _list_runs(console, store, kind)
                return
            record = store.get_run(run)
            page, document = stored_page(store, record)
            if (on_stdout or to_file is not None) and document is None:
                raise InvalidArgument(f"run {record.short_id} ({record.kind}) has no JSON document; use --html")
            text = json.dumps(document, ensure_ascii=False)
            delivery = Delivery(on_stdout)
            if on_stdout:
                delivery.to_stdout(lambda: print(text))
            elif html is None:
                delivery.to_stdout(lambda: _summary(console, record, page, document))
            if to_file is not None:
                delivery.to_file("--json-file", to_file, text + "\n", written="JSON written to {path}")
            if html is not None:
                delivery.html(page, html)
            delivery.finish(lambda: text)


def stored_page(store: Any, record: Any) -> tuple[Any, dict[str, Any] | None]:
    """The HTML page of a stored run, and its JSON document when it has one."""
    from divergent.cli.benchmarks import benchmark_of_run
    from divergent.errors import InvalidArgument
    from divergent.report.html import check_page, cluster_page, probegen_page

    if record.kind in ("check", "cluster"):
        from divergent.report.stored import load_report

        stored = load_report(store, record)
        if record.kind == "check":
            return check_page(stored.document, test=stored.test), stored.document
        return cluster_page(stored.document), stored.document
    benchmark = benchmark_of_run(record.kind)
    if benchmark is not None:  # a benchmark's run (an incoherence study, EquiBench, ...): its scorer, its page
        document = benchmark.report(store, record)
        return benchmark.html(document), document
    if record.kind == "diff":
        from divergent.changes.stored import stored_document
        from divergent.report.changes import diff_page

        document = stored_document(store, record)
        if document is None:
            raise InvalidArgument(f"diff run {record.short_id} did not finish: run the same diff to resume it")
        return diff_page(document), document
    if record.kind == "probegen":
        units = {unit.key: unit.result for unit in store.units(record.id)}
        return probegen_page(record.parameters, units, run_id=record.id, status=record.status), None
    raise InvalidArgument(f"run {record.short_id} is a {record.kind!r} run: no report for it")


def _summary(console: Console, record: Any, page: Any, document: dict[str, Any] | None) -> None:
    """The run's verdict, and for a stored check or cluster its result: the counterexample and what
    each program did, the classes."""
    from rich.text import Text

    from divergent.report.stored import summary_lines

    console.print(f"[bold]{record.kind} run {record.short_id}[/bold] ({record.status}, {record.created})")
    console.print(f"{page.banner.headline}" + (f" — {page.banner.detail}" if page.banner.detail else ""),
                  highlight=False)
    if document is not None and record.kind in ("check", "cluster"):
        for line in summary_lines(record.kind, document):
            console.print(Text(line), soft_wrap=True)
    console.print(f"[dim]divergent report {record.short_id} --html FILE writes the whole report[/dim]")


def _describe(record: Any) -> str:
    parameters = record.parameters
    if record.kind in ("check", "cluster"):
        call = parameters.get("call")
        return f"{parameters.get('verdict')}{' on ' + call if call else ''} · {len(parameters.get('implementations') or [])} impl."
    if record.kind == "incoherence":
        return f"tasks {parameters.get('tasks')}, m={parameters.get('m')}, n={parameters.get('n')}"
    if record.kind == "probegen":
        return f"{parameters.get('function')} · {parameters.get('model')}"
    if record.kind == "diff":
        return f"{parameters['old']['name']} → {parameters['new']['name']} · {len(parameters['functions'])} functions"
    return ""


def _list_runs(console: Console, store: Any, kind: str | None) -> None:
    table = Table(title=f"runs in {store.path}")
    for column in ("run", "kind", "status", "created", "what"):
        table.add_column(column, overflow="fold")
    for record in store.list_runs(kind):
        table.add_row(record.short_id, record.kind, record.status, record.created[:16].replace("T", " "),
                      _describe(record))
    console.print(fitted(table, prose=("what",)))
