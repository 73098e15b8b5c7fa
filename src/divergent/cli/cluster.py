"""``divergent cluster IMPL...``: partition implementations by behaviour."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from divergent.cli import (
    EXIT_SAME,
    AbsTolOpt,
    BudgetOpt,
    EnginesOpt,
    ExceptionsOpt,
    ExecutionsOpt,
    FunctionOpt,
    IsolationOpt,
    IterOpt,
    JsonOpt,
    ListTupleOpt,
    MemoryOpt,
    MutationOpt,
    NanOpt,
    QuietOpt,
    RelTolOpt,
    RequireOpt,
    SeedOpt,
    SeedsOpt,
    StdoutOpt,
    TimeoutOpt,
    UnorderedOpt,
    app,
    build_policy,
    input_errors,
    live_progress,
    stderr_console,
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
def cluster(
    implementations: Annotated[list[str], typer.Argument(help="Implementations (as for check).")],
    function: FunctionOpt = None,
    budget: BudgetOpt = 20.0,
    executions: ExecutionsOpt = None,
    engines: EnginesOpt = None,
    seeds: SeedsOpt = None,
    require: RequireOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    seed: SeedOpt = 0,
    timeout: TimeoutOpt = 2.0,
    memory: MemoryOpt = 2048,
    isolation: IsolationOpt = None,
    rel_tol: RelTolOpt = 1e-9,
    abs_tol: AbsTolOpt = 0.0,
    nan_equal: NanOpt = True,
    exceptions: ExceptionsOpt = "type",
    unordered: UnorderedOpt = False,
    compare_mutation: MutationOpt = True,
    compare_stdout: StdoutOpt = False,
    iterable_limit: IterOpt = 1000,
    list_equals_tuple: ListTupleOpt = False,
) -> None:
    """Partition implementations into behaviour classes; the largest is the self-consistency pick."""
    from divergent.analysis.cluster import cluster as run_cluster
    from divergent.model import Budget
    from divergent.sandbox import Limits
    from divergent.search import resolve_implementations

    console = stderr_console(quiet or as_json)
    with input_errors(as_json):
        policy = build_policy(
            rel_tol, abs_tol, nan_equal, exceptions, unordered, compare_mutation, compare_stdout,
            iterable_limit, list_equals_tuple,
        )
        impls = resolve_implementations(implementations, function=function)
        progress, stop_progress = live_progress(console, not (quiet or as_json))
        try:
            clustering = run_cluster(
                impls, budget=Budget(seconds=budget, executions=executions), engines=engines, seeds=seeds,
                require=require, policy=policy, limits=Limits(timeout=timeout, memory_mb=memory),
                isolation=isolation, seed=seed, progress=progress,
            )
        finally:
            stop_progress()
    if as_json:
        print(json.dumps(clustering_json(clustering, impls[0].entry_point), ensure_ascii=False))
        raise typer.Exit(EXIT_SAME)
    render_clustering(clustering, impls, Console(quiet=False))
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
