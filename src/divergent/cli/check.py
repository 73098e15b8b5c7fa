"""``divergent check IMPL IMPL...``: find an input on which the implementations differ."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from divergent.cli import (
    EXIT_DIVERGENT,
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


@app.command()
def check(
    implementations: Annotated[
        list[str], typer.Argument(help="path.py[:function], module:function, or REV:path.py:function")
    ],
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
    shrink: Annotated[bool, typer.Option("--shrink/--no-shrink", help="Shrink the counterexample.")] = True,
) -> None:
    """Find an input on which the implementations behave differently (exit 1), or say none was found (exit 0)."""
    from divergent.model import Budget
    from divergent.report.json import report_json
    from divergent.report.text import render_report
    from divergent.sandbox import Limits
    from divergent.search import check as run_check
    from divergent.search import resolve_implementations

    console = stderr_console(quiet or as_json)
    with input_errors(as_json):
        policy = build_policy(
            rel_tol, abs_tol, nan_equal, exceptions, unordered, compare_mutation, compare_stdout,
            iterable_limit, list_equals_tuple,
        )
        impls = resolve_implementations(implementations, function=function)
        limits = Limits(timeout=timeout, memory_mb=memory)
        progress, stop_progress = live_progress(console, not (quiet or as_json))
        try:
            report = run_check(
                impls, budget=Budget(seconds=budget, executions=executions), engines=engines, seeds=seeds,
                require=require, policy=policy, limits=limits, isolation=isolation, seed=seed, shrink=shrink,
                progress=progress,
            )
        finally:
            stop_progress()
    if as_json:
        print(json.dumps(report_json(report), ensure_ascii=False))
    elif quiet:
        from divergent.report.text import plain_report

        if report.divergent:
            print(plain_report(report))
    else:
        render_report(report, Console(), impls)
    raise typer.Exit(EXIT_DIVERGENT if report.divergent else EXIT_SAME)
