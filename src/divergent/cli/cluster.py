"""``divergent cluster IMPL...``: partition implementations by behaviour."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from divergent.cli import (
    EXIT_SAME,
    SearchOptions,
    app,
    run_search,
    with_search_options,
)


def clustering_json(clustering: Any, function_name: str) -> dict[str, Any]:
    from divergent.report.json import report_json

    labels = clustering.implementations
    data = report_json(clustering.report, function_name)
    data["classes"] = [{"size": len(members), "members": [labels[i] for i in members]} for members in clustering.classes]
    data["pick"] = labels[clustering.pick()]
    data["tied"] = clustering.tied
    return data


@app.command()
@with_search_options
def cluster(
    implementations: Annotated[list[str], typer.Argument(help="Implementations (as for check).")],
    options: SearchOptions,
) -> None:
    """Partition implementations into behaviour classes; the largest is the self-consistency pick."""
    from divergent.analysis.cluster import cluster as run_cluster

    impls, clustering = run_search(implementations, options, run_cluster)
    if options.as_json:
        print(json.dumps(clustering_json(clustering, impls[0].entry_point), ensure_ascii=False))
    else:
        render_clustering(clustering, impls, Console())
    raise typer.Exit(EXIT_SAME)


def render_clustering(clustering: Any, impls: list, console: Console) -> None:
    from divergent.report.text import render_splits

    labels = clustering.implementations
    report = clustering.report
    function_name = impls[0].entry_point if impls else "f"
    table = Table(title=f"{len(clustering.classes)} behaviour class(es) among {len(labels)} implementations")
    table.add_column("class", justify="right")
    table.add_column("size", justify="right")
    table.add_column("members")
    for number, members in enumerate(clustering.classes, 1):
        table.add_row(str(number), str(len(members)), ", ".join(labels[i] for i in members))
    console.print(table)
    render_splits(clustering.report, function_name, console)
    pick = labels[clustering.pick()]
    tie = " [yellow](tied with another class of the same size)[/yellow]" if clustering.tied else ""
    console.print(f"self-consistency pick: [bold]{pick}[/bold] (largest class, {len(clustering.largest)} members){tie}")
    console.print(
        f"[dim]{report.inputs:,} inputs, {report.executions:,} executions in {report.seconds:.1f} s "
        f"(stopped: {report.exit_reason.value}) · sandbox: {report.isolation}[/dim]"
    )
    for note in report.notes:
        console.print(f"[yellow]note:[/yellow] {note}")
