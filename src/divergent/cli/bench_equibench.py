"""``divergent bench equibench run|show|list``: do two programs behave the same? LLM judges and
divergent's execution judge on EquiBench's pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from divergent.cli.application import input_errors
from divergent.cli.bench import bench_app
from divergent.cli.harness import (
    Output,
    StoredRuns,
    Where,
    add_stored_run_commands,
    harness_group,
    judge_models,
    single_run,
    usage_line,
    work,
)
from divergent.cli.llm_options import ModelAccess
from divergent.cli.option_groups import OptionGroup, with_option_groups

equibench_app = harness_group("EquiBench: do two programs behave the same? LLM judges and divergent's execution judge.")
bench_app.add_typer(equibench_app, name="equibench")


@dataclass(frozen=True)
class EquiBenchOptions(OptionGroup):
    """EquiBench's own options: the pairs, the judge and how it is asked."""

    data: Annotated[Path | None, typer.Option("--data", help="DIR/<CATEGORY>/pairs.json or pairs.jsonl[.gz].")] = None
    categories: Annotated[
        str, typer.Option("--categories", help="Comma-separated: DCE, CUDA (TVM), x86-64 (STOKE), OJ_A, OJ_V, OJ_VA.")
    ] = "all"
    judge: Annotated[str, typer.Option("--judge", help="llm, execution (no model) or hybrid.")] = "llm"
    prompt: Annotated[str, typer.Option("--prompt", help="zero-shot, few-shot, cot or few-shot-cot.")] = "zero-shot"
    prompts: Annotated[
        Path | None, typer.Option("--prompts", help="The authors' prompts.yaml, instead of divergent's prompts.")
    ] = None
    samples: Annotated[int, typer.Option("--samples", min=1, help="Answers per pair; majority vote.")] = 1
    temperature: Annotated[
        float | None, typer.Option("--temperature", help="Default: 0 for one sample, 1 for several.")
    ] = None
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, help="Token limit per answer.")] = None
    extractor_model: Annotated[
        str | None,
        typer.Option("--extractor-model", help="Model that reads verdicts the parser cannot (default: --model)."),
    ] = None
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N pairs of each category.")] = None
    seed: Annotated[int, typer.Option("--seed", help="Seed of the search and of tie-breaking coins.")] = 0
    budget: Annotated[float, typer.Option("--budget", min=0.1, help="Execution: seconds of search per pair.")] = 10.0

    def config(self, isolation: str | None) -> Any:
        """The run's :class:`~divergent.bench.equibench.run.EquiBenchConfig` (the authors' prompts read)."""
        from divergent.bench.equibench.data import parse_categories
        from divergent.bench.equibench.execution import ExecutionSettings
        from divergent.bench.equibench.prompts import PromptStyle, load_authors_prompts
        from divergent.bench.equibench.run import EquiBenchConfig, JudgeKind

        return EquiBenchConfig(
            data=str(self.data), categories=parse_categories(self.categories), judge=JudgeKind.parse(self.judge),
            prompt=PromptStyle.parse(self.prompt), samples=self.samples, temperature=self.temperature,
            max_tokens=self.max_tokens, seed=self.seed, limit=self.limit,
            execution=ExecutionSettings(budget=self.budget, seed=self.seed, isolation=isolation),
            authors=load_authors_prompts(self.prompts) if self.prompts is not None else None,
        )


@equibench_app.command("run")
@with_option_groups
def run(options: EquiBenchOptions, output: Output, where: Where, model: ModelAccess) -> None:
    """Judge EquiBench pairs (or resume the stored run with the same options) and print the accuracy tables."""
    from divergent.bench.equibench.run import EQUIBENCH
    from divergent.errors import InvalidArgument

    notes = output.notes()
    with input_errors(output.prints_json):
        if options.data is None:
            raise InvalidArgument("--data: give EquiBench's directory (DIR/<CATEGORY>/pairs.json)")
        output.check()
        config = options.config(where.isolation)
        models = judge_models(model, config.judge, extractor_model=options.extractor_model)
        ran = work(EQUIBENCH, config, output, where, label="EquiBench", kept="judged pairs are stored", models=models)
        record, progress = ran.worked.run, ran.worked.progress
        if progress.resumed:
            notes.print(f"[dim]{progress.resumed} pair(s) from the stored run {record.short_id} (resumed)[/dim]")
        render_equibench(output.console(), ran.summary, output, price_known=ran.price_known)
    for message in progress.messages[:10]:
        notes.print(Text(f"  {message}", style="yellow"), soft_wrap=True)  # may quote an endpoint: never markup


def _show(console: Console, store: Any, references: Sequence[str], output: Output) -> None:
    from divergent.bench.equibench.run import summarize

    render_equibench(console, summarize(store, single_run(store, references, "EquiBench")), output)


def _row(record: Any) -> tuple[str, ...]:
    parameters = record.parameters
    return (str(parameters.get("judge")), str(parameters.get("model") or "-"), str(parameters.get("prompt") or "-"),
            ",".join(parameters.get("categories", [])))


add_stored_run_commands(equibench_app, StoredRuns(
    title="EquiBench", kinds=("bench-equibench",), columns=("judge", "model", "prompt", "categories"), row=_row,
    show=_show,
))


def render_equibench(console: Console, summary: Any, output: Output, *, price_known: bool = True) -> None:
    """The accuracy table (with the paper's best model beside ours), the bias and confusion figures;
    the results file and the HTML page when asked."""
    from divergent.bench.binary import percent
    from divergent.bench.equibench.run import EQUIBENCH, PAPER_BEST
    from divergent.report.tables import fitted

    parameters = summary.run.parameters
    judge = parameters.get("judge", "llm")
    title = f"EquiBench run {summary.run.short_id} ({summary.run.status}): judge {judge}"
    if parameters.get("model"):
        title += f", {parameters['model']}, {parameters.get('prompt')}"
        if parameters.get("samples", 1) > 1:
            title += f", {parameters['samples']} samples"
    table = Table(title=title)
    columns = ["category", "pairs", "accuracy", "eq", "ineq", "coverage", "unparseable", "paper best"]
    if judge != "llm":
        columns[-1:-1] = ["witnesses", "no diff", "not exec", "too few"]
    for column in columns:
        table.add_column(column, justify="left" if column == "category" else "right")
    for row in (*summary.categories, summary.overall):
        cells = [row.category, str(row.pairs), percent(row.confusion.accuracy), percent(row.confusion.accuracy_equivalent),
                 percent(row.confusion.accuracy_inequivalent), percent(row.coverage),
                 f"{row.unparseable}/{row.samples}" if row.samples else "-"]
        if judge != "llm":
            cells += [str(row.execution.get("inequivalent", 0)), str(row.execution.get("no-difference-found", 0)),
                      str(row.execution.get("not-executable", 0)), str(row.execution.get("too-few-inputs", 0))]
        cells.append(PAPER_BEST.get(row.category, "-"))
        table.add_row(*cells, style="bold" if row.category == "overall" else None)
    console.print(fitted(table))
    confusion = summary.overall.confusion
    console.print(f"confusion (rows truth, columns prediction): equivalent → {confusion.tp} YES / {confusion.fn} NO; "
                  f"inequivalent → {confusion.fp} YES / {confusion.tn} NO")
    if summary.mean_category_accuracy is not None:
        console.print(f"mean of the categories' accuracies: {percent(summary.mean_category_accuracy)}%")
    if judge != "llm":
        false_claims = summary.overall.false_witnesses
        console.print(f"witnesses on pairs labelled equivalent: {false_claims}"
                      + (" (check the witnesses: definition mismatch or nondeterminism)" if false_claims else ""))
    if judge == "hybrid":
        console.print(f"decided by execution alone: {summary.overall.decided_by_execution} pair(s)")
    if summary.overall.samples:
        console.print("usage: " + usage_line(summary.overall.usage.as_dict(), price_known))
    if summary.errors:
        console.print(f"[yellow]{len(summary.errors)} pair(s) failed (see --json)[/yellow]")
    output.deliver(EQUIBENCH, summary, "divergent bench equibench", price_known=price_known)
