"""``divergent cluster IMPL...``: partition implementations by behaviour.

Without a model, the engines split the implementations for the whole budget
(:mod:`divergent.clustering`). With ``--model``, semantic clustering (ProbeGen, Sec. 5):
the cheap engines split first, then ``--probes`` ProbeGen searches on pairs from the largest cluster,
each split judged by the spurious-counterexample filter (:mod:`divergent.clustering.semantic`).
``--tests FILE`` adds pass@1 of the self-consistency pick against reference tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from divergent.cli.application import app, exit_code, make_console
from divergent.cli.llm_options import ModelGroup
from divergent.cli.option_groups import with_option_groups
from divergent.cli.search_options import IMPLEMENTATIONS_HELP, SearchFlags, run_search

ProbesOpt = Annotated[
    int,
    typer.Option("--probes", metavar="N", help="With --model: ProbeGen probes (N_P) for semantic clustering.", min=0,
                 rich_help_panel=ModelGroup.panel),
]
TestsOpt = Annotated[
    Path | None,
    typer.Option("--tests", metavar="FILE", help="Reference tests (assert lines, test_*() or check(candidate)) for pass@1."),
]


def clustering_json(clustering: Any, function_name: str, tests: Any = None) -> dict[str, Any]:
    from divergent.kinds.reports import report_json

    labels = clustering.implementations
    data = report_json(clustering.report, function_name)
    data["classes"] = [{"size": len(members), "members": [labels[i] for i in members],
                        **_set_apart(clustering, members)} for members in clustering.classes]
    pick = clustering.pick()
    # no pick when the classes rest on too few inputs (verdict too-few-inputs: "reason" says why)
    data["pick"] = labels[pick] if pick is not None else None
    data["tied"] = clustering.tied
    data["tied_classes"] = [[labels[i] for i in members] for members in clustering.tied_classes]
    data["unloadable"] = {labels[i]: why for i, why in sorted(clustering.unloadable.items())}
    data["undecided"] = {labels[i]: why for i, why in sorted(clustering.undecided.items())}
    from divergent.clustering.semantic import SemanticClustering

    probes = clustering.probes if isinstance(clustering, SemanticClustering) else None
    if probes is not None:
        data["probes"] = [probe.as_dict(labels) for probe in probes]
        data["usage"] = {"model": clustering.model, **clustering.usage.as_dict()}
    if tests is not None:
        from divergent.clustering.semantic import self_consistency_pass_at_1

        data["tests"] = {
            "total": tests.total,
            "passed": {labels[i]: tests.passed[i] for i in range(len(labels))},
            "first_failure": {labels[i]: tests.first_failure[i] or None for i in range(len(labels))},
        }
        data["pass_at_1"] = self_consistency_pass_at_1(clustering.tied_classes, tests) if pick is not None else None
        data["baseline_pass_at_1"] = tests.pass_rate
    return data


def _set_apart(clustering: Any, members: tuple[int, ...]) -> dict[str, str]:
    """Why a class of one stands apart without a split: it does not load, or it was never told apart."""
    if len(members) == 1 and members[0] in clustering.unloadable:
        return {"does_not_load": clustering.unloadable[members[0]]}
    if len(members) == 1 and members[0] in clustering.undecided:
        return {"undecided": clustering.undecided[members[0]]}
    return {}


@app.command()
@with_option_groups
def cluster(
    implementations: Annotated[list[str], typer.Argument(help=IMPLEMENTATIONS_HELP, metavar="IMPL")],
    flags: SearchFlags,
    probes: ProbesOpt = 10,
    tests: TestsOpt = None,
) -> None:
    """Partition implementations into behaviour classes; the largest is the self-consistency pick."""
    from divergent.clustering import cluster as plain_cluster
    from divergent.clustering.semantic import (
        load_reference_tests,
        run_reference_tests,
        semantic_cluster,
    )

    def run(impls: list, search_options: Any) -> tuple[Any, Any]:
        # Read the tests first: a bad file is an input error before any budget is spent.
        reference = load_reference_tests(tests) if tests is not None else None
        from divergent.clustering.behaviour import Unloadable, with_unloadable
        from divergent.kinds.registry import choose_kind

        loaded = [impl for impl in impls if not isinstance(impl, Unloadable)]
        # Semantic clustering (ProbeGen on pairs, the filter) is for the kinds it fits (functions);
        # other programs are split by the search, whose portfolio has their LLM engine with a model.
        if search_options.llm is None or len(loaded) < 2 or not choose_kind(loaded, search_options).semantic_clustering:
            clustering = plain_cluster(impls, search_options)
        else:
            settings = search_options.probegen
            clustering = with_unloadable(impls, semantic_cluster(
                loaded, search_options.llm, probes=probes, spec=search_options.spec,
                spurious_filter=search_options.spurious_filter or False, strategy=settings.strategy, k=settings.k,
                d=settings.d, options=search_options,
            ))
        results = None
        if reference is not None:
            results = run_reference_tests(impls, reference, limits=search_options.limits,
                                          isolation=clustering.report.isolation or None)
        return clustering, results

    from divergent.cli.application import input_errors
    from divergent.cli.config import settings_origins
    from divergent.cli.outputs import Delivery, command_identity, keep_report, verbose_lines

    outputs = flags.outputs
    with input_errors(outputs.prints_json):
        outputs.check_paths()
    from divergent.clustering.behaviour import load_each

    ran = run_search(implementations, flags, run, load=load_each)
    impls, (clustering, results) = list(ran.programs), ran.result
    document = {**clustering_json(clustering, impls[0].display_name, results), "settings": settings_origins()}
    delivery = Delivery(outputs.quiet)
    outputs.write_json(document, delivery)
    if outputs.quiet and not outputs.prints_json:
        delivery.to_stdout(lambda: print(plain_clustering(clustering)))
    elif not outputs.prints_json:
        delivery.to_stdout(lambda: render_clustering(clustering, impls, make_console(), results))
        if outputs.verbose:
            delivery.to_stdout(lambda: print(verbose_lines(document)))
    if outputs.html is not None:
        from divergent.report.html import cluster_page

        delivery.html(cluster_page(document), outputs.html)
    if outputs.store or outputs.db is not None:
        keep_report("cluster", document, outputs.db, delivery,
                    command=command_identity("cluster", implementations, flags) | {"probes": probes, "tests": str(tests)})
    delivery.finish(lambda: plain_clustering(clustering))
    raise typer.Exit(exit_code(clustering.report, clustering=True))


def plain_clustering(clustering: Any) -> str:
    """The classes and the pick as plain text (``--quiet``): one line per class, then the pick."""
    from divergent.values import printable

    labels = clustering.implementations
    count = len(clustering.classes)
    lines = [f"{count} behaviour class{'es' if count != 1 else ''} among {len(labels)} implementations"]
    lines.extend(f"  class {number} ({len(members)}): {' = '.join(labels[i] for i in members)}"
                 for number, members in enumerate(clustering.classes, 1))
    lines.extend(f"  {labels[i]}: does not load: {error}" for i, error in clustering.unloadable.items())
    lines.extend(f"  {labels[i]}: never told apart: {why}" for i, why in clustering.undecided.items())
    pick = clustering.pick()
    if pick is None:
        lines.append(f"pick: none (too few inputs: {clustering.report.reason})" if not clustering.earned
                     else "pick: none (no implementation ran)")
    else:
        tied = len(clustering.tied_classes)
        lines.append(f"pick: {labels[pick]}" + (f" (tied: {tied} classes of {len(clustering.largest)})"
                                                if tied > 1 else ""))
    lines.extend(f"note: {note}" for note in clustering.report.notes)
    return printable("\n".join(lines))


def render_clustering(clustering: Any, impls: list, console: Console, tests: Any = None) -> None:
    from divergent.report.text import filtered_out_lines, llm_usage_text, render_splits, too_few_headline

    labels = clustering.implementations
    report = clustering.report
    function_name = next((impl.display_name for impl in impls if hasattr(impl, "source")), "f")
    table = Table(title=f"{len(clustering.classes)} behaviour class(es) among {len(labels)} implementations"
                  + ("" if clustering.earned else f" (judged on {report.inputs:,} input(s), fewer than "
                                                   f"{report.min_inputs}: not told apart)"))
    table.add_column("class", justify="right")
    table.add_column("size", justify="right")
    table.add_column("members")
    if tests is not None:
        table.add_column(f"pass all {tests.total} tests", justify="right")
    for number, members in enumerate(clustering.classes, 1):
        apart = _set_apart(clustering, members)
        shown = ", ".join(labels[i] for i in members)
        if apart:
            shown += f" ({'does not load: ' if 'does_not_load' in apart else 'not told apart: '}{next(iter(apart.values()))})"
        row = [str(number), str(len(members)), shown]
        if tests is not None:
            row.append(f"{sum(tests.passes(i) for i in members)}/{len(members)}")
        table.add_row(*row)
    console.print(table)
    render_splits(report, function_name, console)
    if report.filtered_out:
        console.print(f"[bold]{len(report.filtered_out)} difference(s) judged irrelevant[/bold] (split nothing):")
        for line in filtered_out_lines(report):
            console.print(f"    {line}", markup=False)
    from divergent.clustering.semantic import SemanticClustering

    probes = clustering.probes if isinstance(clustering, SemanticClustering) else None
    if probes:
        console.print(f"[bold]{len(probes)} ProbeGen probe(s)[/bold]:")
        for number, probe in enumerate(probes, 1):
            pair = " vs ".join(labels[i] for i in probe.pair)
            console.print(
                f"    {number}. {pair}: {probe.reason}, {probe.calls} call(s), {probe.inputs} input(s) → "
                f"{probe.clusters_after} class(es)", markup=False,
            )
    pick = clustering.pick()
    tied = clustering.tied_classes
    if pick is None:
        console.print(f"[bold yellow]self-consistency pick: none[/bold yellow] — {too_few_headline(report)}",
                      highlight=False)
    else:
        tie = f" [yellow](tied: {len(tied)} classes of {len(clustering.largest)})[/yellow]" if len(tied) > 1 else ""
        console.print(f"self-consistency pick: [bold]{labels[pick]}[/bold] (largest class, "
                      f"{len(clustering.largest)} members){tie}")
    if tests is not None and pick is not None:
        from divergent.clustering.semantic import self_consistency_pass_at_1

        console.print(
            f"pass@1: {self_consistency_pass_at_1(tied, tests):.3f} with the pick "
            f"({'averaged over the tied classes' if len(tied) > 1 else 'the largest class'}), "
            f"{tests.pass_rate:.3f} for a random implementation"
        )
    console.print(
        f"[dim]{report.inputs:,} inputs, {report.executions:,} executions in {report.seconds:.1f} s "
        f"(stopped: {report.exit_reason.value}) · sandbox: {report.isolation or 'none'}[/dim]"
    )
    if probes is not None:
        console.print(f"[dim]{llm_usage_text({'model': clustering.model, **clustering.usage.as_dict()})}[/dim]")
    for note in report.notes:
        console.print(Text.assemble(("note: ", "yellow"), note))  # a note may quote a model: never markup
