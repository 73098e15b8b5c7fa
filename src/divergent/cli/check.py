"""``divergent check IMPL IMPL...``: find an input on which the implementations differ."""

from __future__ import annotations

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

    from divergent.cli.application import input_errors
    from divergent.cli.config import settings_origins
    from divergent.cli.outputs import command_identity
    from divergent.kinds.reports import report_json
    from divergent.search import check as run_check

    compared: list = []

    def run(found: list, search_options: Any) -> Any:
        if brute_force:
            found = [*found, brute_force_implementation(found, search_options)]
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
    document = {**report_json(report, names.pop() if len(names) == 1 else "f", extras=extras),
                "settings": settings_origins()}
    test = None
    if report.counterexample is not None:
        # paths relative to where the test is written, or to the current directory
        test_dir = emit_test.resolve().parent if emit_test is not None else Path.cwd()
        with input_errors(outputs.prints_json):
            test = kind.reproduction(report.counterexample, programs, ran.options, test_dir=test_dir)
    command = command_identity("check", implementations, flags) | {"shrink": shrink, "brute_force": brute_force}
    _deliver(report, replace(extras, test=test), document, outputs, emit_test=emit_test, command=command)
    mark("report written")
    raise typer.Exit(exit_code(report))


def _deliver(report: Any, extras: Any, document: dict, outputs: OutputGroup, *, emit_test: Path | None,
             command: dict) -> None:
    """The report where the output flags send it: ``--json``, the terminal (or ``--quiet``'s one
    line), ``--verbose``, ``--emit-test`` (``extras.test``), ``--html``, the store."""
    from dataclasses import replace

    from divergent.cli.outputs import Delivery, keep_report, verbose_lines

    delivery = Delivery(outputs.quiet)
    test = extras.test
    outputs.write_json(document, delivery)
    if outputs.quiet and not outputs.prints_json:
        if report.divergent or report.too_few_inputs or report.exit_reason is ExitReason.INTERRUPTED:
            delivery.to_stdout(lambda: print(_plain_result(report, extras)))
    elif not outputs.prints_json:
        from divergent.kinds.reports import render_report

        # with --emit-test the test is in its file: the terminal names it instead of printing it
        shown = replace(extras, test=test if emit_test is None else "")
        delivery.to_stdout(lambda: render_report(report, make_console(), extras=shown))
    if outputs.verbose and not outputs.prints_json:
        delivery.to_stdout(lambda: print(verbose_lines(document)))
    if emit_test is not None:
        if test is None:
            delivery.note(f"no counterexample: {emit_test} not written")
        else:
            delivery.to_file("--emit-test", emit_test, test, written="reproducing test written: pytest {path}")
    if outputs.html is not None:
        from divergent.report.html import check_page

        delivery.html(check_page(document, test=test), outputs.html)
    if outputs.store or outputs.db is not None:
        keep_report("check", document, outputs.db, delivery, test=test, command=command)
    delivery.finish(lambda: _plain_result(report, extras))


def _plain_result(report: Any, extras: Any) -> str:
    from divergent.kinds.reports import plain_report

    return plain_report(report, extras)


def brute_force_implementation(programs: list, options: Any) -> Any:
    """The model's brute-force reference, added as one more program (labelled LLM-written): a
    capability of the programs' kind (one that lacks it says so: an input error)."""
    from divergent.errors import InvalidArgument
    from divergent.kinds.registry import choose_kind

    kind = choose_kind(programs, options)
    if kind.brute_force and options.llm is None:
        raise InvalidArgument("--brute-force needs a model: pass --model (the model writes the reference)")
    return kind.brute_force_reference(programs, options.llm, options.spec)
