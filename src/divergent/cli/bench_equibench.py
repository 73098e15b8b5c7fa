"""``divergent bench equibench run|show|list``: do two programs behave the same? LLM judges and
divergent's execution judge on EquiBench's pairs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from divergent.cli.application import input_errors, make_console
from divergent.cli.bench import bench_app
from divergent.cli.harness import (
    AddressOpt,
    ExecutorOpt,
    HtmlOpt,
    IsolationOpt,
    JobsOpt,
    JsonOpt,
    QuietOpt,
    StoredRuns,
    StoreOpt,
    add_stored_run_commands,
    check_outputs,
    executor_settings,
    harness_group,
    interrupted,
    item_progress,
    no_model_flags,
    open_store,
    prints_json,
    single_run,
    usage_line,
    write_outputs,
)
from divergent.cli.llm_options import (
    ApiKeyEnvOpt,
    BaseUrlOpt,
    LLMConfigOpt,
    ModelOpt,
    ReplayOpt,
    chat_model_from_options,
)

equibench_app = harness_group("EquiBench: do two programs behave the same? LLM judges and divergent's execution judge.")
bench_app.add_typer(equibench_app, name="equibench")


@equibench_app.command("run")
def run(
    data: Annotated[Path | None, typer.Option("--data", help="DIR/<CATEGORY>/pairs.json or pairs.jsonl[.gz].")] = None,
    categories: Annotated[
        str, typer.Option("--categories", help="Comma-separated: DCE, CUDA (TVM), x86-64 (STOKE), OJ_A, OJ_V, OJ_VA.")
    ] = "all",
    judge: Annotated[str, typer.Option("--judge", help="llm, execution (no model) or hybrid.")] = "llm",
    prompt: Annotated[str, typer.Option("--prompt", help="zero-shot, few-shot, cot or few-shot-cot.")] = "zero-shot",
    prompts: Annotated[
        Path | None, typer.Option("--prompts", help="The authors' prompts.yaml, instead of divergent's prompts.")
    ] = None,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Answers per pair; majority vote.")] = 1,
    temperature: Annotated[
        float | None, typer.Option("--temperature", help="Default: 0 for one sample, 1 for several.")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, help="Token limit per answer.")] = None,
    extractor_model: Annotated[
        str | None,
        typer.Option("--extractor-model", help="Model that reads verdicts the parser cannot (default: --model)."),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N pairs of each category.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the search and of tie-breaking coins.")] = 0,
    budget: Annotated[float, typer.Option("--budget", min=0.1, help="Execution: seconds of search per pair.")] = 10.0,
    as_json: JsonOpt = None,
    html: HtmlOpt = None,
    quiet: QuietOpt = False,
    db: StoreOpt = None,
    jobs: JobsOpt = None,
    executor: ExecutorOpt = "threads",
    address: AddressOpt = None,
    isolation: IsolationOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: ApiKeyEnvOpt = None,
    llm_config: LLMConfigOpt = None,
    replay: ReplayOpt = False,
) -> None:
    """Judge EquiBench pairs (or resume the stored run with the same options) and print the accuracy tables."""
    from divergent.bench.equibench.data import parse_categories
    from divergent.bench.equibench.execution import ExecutionSettings
    from divergent.bench.equibench.prompts import PromptStyle, load_authors_prompts
    from divergent.bench.equibench.run import EquiBenchConfig, JudgeKind, run_equibench, summarize
    from divergent.errors import InvalidArgument
    from divergent.executors.settings import open_executor

    notes = make_console(stderr=True, quiet=quiet)
    chat = extractor = None
    with input_errors(prints_json(as_json)):
        if data is None:
            raise InvalidArgument("--data: give EquiBench's directory (DIR/<CATEGORY>/pairs.json)")
        check_outputs(as_json, html)
        where = executor_settings(executor, address, jobs)
        judge_kind = JudgeKind.parse(judge)
        config = EquiBenchConfig(
            data=str(data), categories=parse_categories(categories), judge=judge_kind,
            prompt=PromptStyle.parse(prompt), samples=samples, temperature=temperature, max_tokens=max_tokens,
            seed=seed, limit=limit,
            execution=ExecutionSettings(budget=budget, seed=seed, isolation=isolation),
        )
        authors = load_authors_prompts(prompts) if prompts is not None else None
        if not judge_kind.needs_model:
            no_model_flags("--judge execution (or use --judge hybrid)", model=model, base_url=base_url,
                           replay=replay, api_key_env=api_key_env, llm_config=llm_config)
        with open_store(db) as store:
            if judge_kind.needs_model:
                chat = chat_model_from_options(model, base_url, api_key_env, llm_config, replay, store=store)
                if chat is None:
                    raise InvalidArgument(f"--judge {judge_kind.value} needs a model: give --model (or --judge "
                                          "execution)")
            if extractor_model is not None:
                extractor = chat_model_from_options(extractor_model, base_url, api_key_env, llm_config, replay,
                                                    store=store)
            try:
                with open_executor(where) as workers, item_progress(notes, "EquiBench", quiet=quiet) as update:
                    record, progress, _ = run_equibench(config, store, chat=chat, extractor=extractor, authors=authors,
                                                        executor=workers, on_progress=update)
            except KeyboardInterrupt:
                raise interrupted("judged pairs are stored") from None
            finally:
                for client in (chat, extractor):
                    if client is not None:
                        client.close()
            summary = summarize(store, record)
        if progress.resumed:
            notes.print(f"[dim]{progress.resumed} pair(s) from the stored run {record.short_id} (resumed)[/dim]")
        price_known = chat.price_known if chat is not None else True
        render_equibench(make_console(quiet=prints_json(as_json)), summary, as_json, html, price_known=price_known,
                         quiet=quiet)
    for message in progress.messages[:10]:
        notes.print(Text(f"  {message}", style="yellow"), soft_wrap=True)  # may quote an endpoint: never markup


def _show(console: Console, store: Any, references: Sequence[str], as_json: Path | None, html: Path | None,
          quiet: bool) -> None:
    from divergent.bench.equibench.run import summarize

    render_equibench(console, summarize(store, single_run(store, references, "EquiBench")), as_json, html, quiet=quiet)


def _row(record: Any) -> tuple[str, ...]:
    parameters = record.parameters
    return (str(parameters.get("judge")), str(parameters.get("model") or "-"), str(parameters.get("prompt") or "-"),
            ",".join(parameters.get("categories", [])))


add_stored_run_commands(equibench_app, StoredRuns(
    title="EquiBench", kinds=("bench-equibench",), columns=("judge", "model", "prompt", "categories"), row=_row,
    show=_show,
))


def render_equibench(console: Console, summary: Any, as_json: Path | None, html: Path | None = None, *,
                     price_known: bool = True, quiet: bool = False) -> None:
    """The accuracy table (with the paper's best model beside ours), the bias and confusion figures;
    the results file and the HTML page when asked."""
    from divergent.bench.binary import percent
    from divergent.bench.equibench.html import equibench_page
    from divergent.bench.equibench.run import PAPER_BEST, summary_json
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
    write_outputs(summary_json(summary), as_json, html,
                  lambda document: equibench_page(document, price_known=price_known), quiet=quiet,
                  again=f"divergent bench equibench show {summary.run.short_id}")
