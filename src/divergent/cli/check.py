"""``divergent check IMPL IMPL...``: find an input on which the implementations differ."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, Any

import typer

from divergent.cli.application import app, exit_code, make_console
from divergent.cli.llm_options import ModelGroup
from divergent.cli.option_groups import with_option_groups
from divergent.cli.outputs import OutputGroup
from divergent.cli.search_groups import SearchGroup
from divergent.cli.search_options import IMPLEMENTATIONS_HELP, SearchFlags, run_search
from divergent.records import ExitReason


@app.command()
@with_option_groups
def check(
    implementations: Annotated[list[str], typer.Argument(help=IMPLEMENTATIONS_HELP, metavar="IMPL")],
    flags: SearchFlags,
    shrink: Annotated[bool, typer.Option("--shrink/--no-shrink", help="Shrink the counterexample.",
                                         rich_help_panel=SearchGroup.panel)] = True,
    brute_force: Annotated[
        bool,
        typer.Option("--brute-force", help="With --model: compare with a brute-force reference the model writes "
                     "(REFUTE's RandSearch when no implementation is trusted).", rich_help_panel=ModelGroup.panel),
    ] = False,
    emit_test: Annotated[
        Path | None,
        typer.Option("--emit-test", metavar="FILE", rich_help_panel=OutputGroup.panel,
                     help="Write a pytest module reproducing the counterexample here (paths relative to it); it "
                     "fails while the implementations differ."),
    ] = None,
) -> None:
    """Find an input on which the implementations behave differently (exit 1), or say none was found (exit 0)."""
    from dataclasses import replace

    from divergent.trace import mark

    mark("command parsed")

    from divergent.cli.application import input_errors, stderr_console
    from divergent.cli.outputs import command_identity, keep_report, write_html_report, write_text_file
    from divergent.report.json import report_json
    from divergent.search import check as run_check

    compared: list = []

    def run(found: list, search_options: Any) -> Any:
        if brute_force:
            found = [*found, brute_force_implementation(found, search_options.llm, search_options.spec)]
        compared[:] = found
        return run_check(found, search_options, shrink=shrink)

    outputs = flags.outputs
    with input_errors(outputs.prints_json):
        outputs.check_paths(("--emit-test", emit_test))
    # (--brute-force adds the model's reference: one implementation is enough then)
    ran = run_search(implementations, flags, run, minimum=1 if brute_force else 2)
    kind, report, programs = ran.kind, ran.result, compared or list(ran.programs)
    mark("search done")
    extras = kind.extras(report, programs, ran.options)
    # the calls of a report without a counterexample (splits, nondeterministic inputs) are written
    # with the functions' name when they share one
    names = {getattr(program, "display_name", "f") for program in programs}
    document = report_json(report, names.pop() if len(names) == 1 else "f", extras=extras)
    notices = functools.cache(lambda: stderr_console(outputs.quiet))  # made when a notice is printed
    test = None
    if report.counterexample is not None:
        # paths relative to where the test is written, or to the current directory
        test_dir = emit_test.resolve().parent if emit_test is not None else Path.cwd()
        with input_errors(outputs.prints_json):
            test = kind.reproduction(report.counterexample, programs, ran.options, test_dir=test_dir)
    with input_errors(outputs.prints_json):
        outputs.write_json(document, notices())
    if outputs.quiet and not outputs.prints_json:
        from divergent.report.text import plain_report

        if report.divergent or report.too_few_inputs or report.exit_reason is ExitReason.INTERRUPTED:
            print(plain_report(report, extras))
    elif not outputs.prints_json:
        from divergent.report.text import render_report

        # with --emit-test the test is in its file: the terminal names it instead of printing it
        render_report(report, make_console(), extras=replace(extras, test=test if emit_test is None else ""))
    with input_errors(outputs.prints_json):
        if emit_test is not None:
            if test is None:
                notices().print(f"no counterexample: {emit_test} not written", highlight=False)
            else:
                write_text_file(emit_test, test, "--emit-test")
                notices().print(f"reproducing test written: pytest {emit_test}", highlight=False)
        if outputs.html is not None:
            from divergent.report.html import check_page

            write_html_report(check_page(document, test=test), outputs.html, notices())
        if outputs.store or outputs.db is not None:
            command = command_identity("check", implementations, flags) | {"shrink": shrink, "brute_force": brute_force}
            keep_report("check", document, outputs.db, notices(), test=test, command=command)
    mark("report written")
    raise typer.Exit(exit_code(report))


def brute_force_implementation(impls: list, llm: Any, spec: str | None) -> Any:
    """The model's brute-force reference, added as one more implementation (labelled LLM-written)."""
    from divergent.engines.randsearch import brute_force_reference
    from divergent.errors import InvalidArgument

    if llm is None:
        raise InvalidArgument("--brute-force needs a model: pass --model (the model writes the reference)")
    return brute_force_reference(impls, llm, spec=spec)
