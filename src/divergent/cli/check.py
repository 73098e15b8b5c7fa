"""``divergent check IMPL IMPL...``: find an input on which the implementations differ."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console

from divergent.cli.app import EXIT_DIVERGENT, EXIT_SAME, app
from divergent.cli.search_options import SearchArguments, run_search, with_search_options


@app.command()
@with_search_options
def check(
    implementations: Annotated[
        list[str], typer.Argument(help="path.py[:function], module:function, or REV:path.py:function")
    ],
    options: SearchArguments,
    shrink: Annotated[bool, typer.Option("--shrink/--no-shrink", help="Shrink the counterexample.")] = True,
    brute_force: Annotated[
        bool,
        typer.Option("--brute-force", help="With --model: compare with a brute-force reference the model writes "
                     "(REFUTE's RandSearch when no implementation is trusted).", rich_help_panel="Language model"),
    ] = False,
) -> None:
    """Find an input on which the implementations behave differently (exit 1), or say none was found (exit 0)."""
    from divergent.report.json import report_json
    from divergent.report.text import plain_report, render_report
    from divergent.search import check as run_check

    compared: list = []

    def run(found: list, search_options: Any) -> Any:
        if brute_force:
            found = [*found, brute_force_implementation(found, search_options.llm, search_options.spec)]
        compared[:] = found
        return run_check(found, search_options, shrink=shrink)

    impls, report = run_search(implementations, options, run)
    impls = compared or impls
    from divergent.programs import StdinProgram

    if any(isinstance(impl, StdinProgram) for impl in impls):
        render_programs(report, impls, options)
        raise typer.Exit(EXIT_DIVERGENT if report.divergent else EXIT_SAME)
    if options.as_json:
        print(json.dumps(report_json(report), ensure_ascii=False))
    elif options.quiet:
        if report.divergent:
            print(plain_report(report))
    else:
        render_report(report, Console(), impls)
    raise typer.Exit(EXIT_DIVERGENT if report.divergent else EXIT_SAME)


def render_programs(report: Any, programs: list, arguments: SearchArguments) -> None:
    """The report of a search over whole programs: the input saved to a file, commands to rerun."""
    from divergent.cli.programs import program_extras
    from divergent.report.json import report_json
    from divergent.report.programs import plain_program_report, render_program_report

    input_file, reproduce = program_extras(report, programs, arguments.program_options(), arguments.timeout)
    if arguments.as_json:
        print(json.dumps(report_json(report, input_file=input_file, reproduce=reproduce), ensure_ascii=False))
    elif arguments.quiet:
        if report.divergent:
            print(plain_program_report(report, input_file=input_file, reproduce=reproduce))
    else:
        render_program_report(report, Console(), input_file=input_file, reproduce=reproduce)


def brute_force_implementation(impls: list, llm: Any, spec: str | None) -> Any:
    """The model's brute-force reference, added as one more implementation (labelled LLM-written)."""
    from divergent.engines.randsearch import brute_force_reference
    from divergent.errors import InvalidArgument

    if llm is None:
        raise InvalidArgument("--brute-force needs a model: pass --model (the model writes the reference)")
    return brute_force_reference(impls, llm, spec=spec)
