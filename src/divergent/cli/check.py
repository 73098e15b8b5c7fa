"""``divergent check IMPL IMPL...``: find an input on which the implementations differ."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from divergent.cli import (
    EXIT_DIVERGENT,
    EXIT_SAME,
    SearchOptions,
    app,
    run_search,
    with_search_options,
)


@app.command()
@with_search_options
def check(
    implementations: Annotated[
        list[str], typer.Argument(help="path.py[:function], module:function, or REV:path.py:function")
    ],
    options: SearchOptions,
    shrink: Annotated[bool, typer.Option("--shrink/--no-shrink", help="Shrink the counterexample.")] = True,
) -> None:
    """Find an input on which the implementations behave differently (exit 1), or say none was found (exit 0)."""
    from divergent.report.json import report_json
    from divergent.report.text import plain_report, render_report
    from divergent.search import check as run_check

    impls, report = run_search(implementations, options, lambda found, **kw: run_check(found, shrink=shrink, **kw))
    if options.as_json:
        print(json.dumps(report_json(report), ensure_ascii=False))
    elif options.quiet:
        if report.divergent:
            print(plain_report(report))
    else:
        render_report(report, Console(), impls)
    raise typer.Exit(EXIT_DIVERGENT if report.divergent else EXIT_SAME)
