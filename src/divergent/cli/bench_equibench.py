"""``divergent bench equibench``, and what the bench harnesses of issue F share on the command line
(the store option, the progress bar, usage lines); ``bench_cetbench.py`` holds ``divergent bench cetbench``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from divergent.cli.app import input_errors
from divergent.cli.bench import bench_app
from divergent.cli.llm_options import ApiKeyEnvOpt, BaseUrlOpt, LLMConfigOpt, ModelOpt, ReplayOpt

equibench_app = typer.Typer(
    help="EquiBench: do two programs behave the same? LLM judges and divergent's execution judge.",
    invoke_without_command=True,
    no_args_is_help=False,
)
bench_app.add_typer(equibench_app, name="equibench")

StoreOpt = Annotated[
    Path | None, typer.Option("--db", help="SQLite store (default: $DIVERGENT_HOME or ~/.local/share/divergent).")
]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="Write the results as JSON to this file.")]
HtmlOpt = Annotated[Path | None, typer.Option("--html", help="Write a self-contained HTML report to this file.")]


def print_runs(title: str, columns: tuple[str, ...], rows: Iterator[tuple[str, ...]]) -> None:
    """The table of a harness's stored runs."""
    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def open_store(db: Path | None) -> Any:
    from divergent.store import Store

    return Store(db)


@contextmanager
def progress_bar(console: Console, label: str) -> Iterator[Callable[[Any], None]]:
    """A progress bar on stderr (when it is a terminal) fed with :class:`ItemProgress` snapshots."""
    if not console.is_terminal:
        yield lambda progress: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[note]}"),
                   TimeElapsedColumn(), console=console, transient=True)
    task = bar.add_task(label, total=None, note="")
    bar.start()

    def update(progress: Any) -> None:
        note = f"{progress.failed} failed" if progress.failed else ""
        bar.update(task, total=progress.total, completed=progress.done, note=note)

    try:
        yield update
    finally:
        bar.stop()


def check_outputs(as_json: Path | None, html: Path | None) -> None:
    """Before any work: the output files' directories exist (a typo costs no run)."""
    from divergent.cli.outputs import check_output_paths

    check_output_paths(("--json", as_json), ("--html", html))


def write_results_files(console: Console, document: dict[str, Any], as_json: Path | None, html: Path | None,
                        page: Callable[..., Any], *, price_known: bool = True) -> None:
    """The ``--json`` file and the ``--html`` page of a results document (``page`` builds the page)."""
    from divergent.bench.common import write_results
    from divergent.cli.outputs import write_html_report

    if as_json is not None:
        write_results(as_json, document)
        console.print(f"results written to {as_json}")
    if html is not None:
        write_html_report(page(document, price_known=price_known), html, Console(stderr=True))


def usage_line(usage: dict[str, Any], price_known: bool = True) -> str:
    tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
    cost = f"${usage.get('cost', 0.0):.4f}" if price_known else "cost unknown (no price for this model)"
    return (f"{usage.get('calls', 0)} model calls ({usage.get('cached_calls', 0)} from the cache), "
            f"{tokens:,} tokens, {cost}")


def make_chat(model: str | None, base_url: str | None, api_key_env: str | None, llm_config: Path | None,
              replay: bool, store: Any) -> Any:
    from divergent.cli.llm_options import chat_model_from_options

    return chat_model_from_options(model, base_url, api_key_env, llm_config, replay, store=store)


@equibench_app.callback()
def equibench(
    context: typer.Context,
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
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1)] = None,
    extractor_model: Annotated[
        str | None,
        typer.Option("--extractor-model", help="Model that reads verdicts the parser cannot (default: --model)."),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N pairs of each category.")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Pairs judged at the same time.")] = 1,
    budget: Annotated[float, typer.Option("--budget", min=0.1, help="Execution: seconds of search per pair.")] = 10.0,
    isolation: Annotated[str | None, typer.Option("--isolation")] = None,
    as_json: JsonOpt = None,
    html: HtmlOpt = None,
    db: StoreOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: ApiKeyEnvOpt = None,
    llm_config: LLMConfigOpt = None,
    replay: ReplayOpt = False,
) -> None:
    """Judge EquiBench pairs (or resume the stored run with the same options) and print the accuracy tables."""
    if context.invoked_subcommand is not None:
        return
    console = Console()
    errors = Console(stderr=True)
    from divergent.bench.equibench.data import parse_categories
    from divergent.bench.equibench.execution import ExecutionSettings
    from divergent.bench.equibench.prompts import PromptStyle, load_authors_prompts
    from divergent.bench.equibench.run import EquiBenchConfig, JudgeKind, run_equibench, summarize
    from divergent.errors import InvalidArgument

    chat = extractor = None
    with input_errors(False), open_store(db) as store:
        check_outputs(as_json, html)
        if data is None:
            raise InvalidArgument("give --data DIR (EquiBench's DIR/<CATEGORY>/pairs.json), or a subcommand: "
                                  "show, list")
        judge_kind = JudgeKind.parse(judge)
        config = EquiBenchConfig(
            data=str(data), categories=parse_categories(categories), judge=judge_kind,
            prompt=PromptStyle.parse(prompt), samples=samples, temperature=temperature, max_tokens=max_tokens,
            seed=seed, limit=limit,
            execution=ExecutionSettings(budget=budget, seed=seed, isolation=isolation),
        )
        authors = load_authors_prompts(prompts) if prompts is not None else None
        if not judge_kind.needs_model:
            given = [flag for flag, value in (("--model", model), ("--base-url", base_url), ("--replay", replay or None),
                                              ("--api-key-env", api_key_env), ("--llm-config", llm_config))
                     if value is not None]
            if given:
                raise InvalidArgument(f"--judge execution uses no model: drop {', '.join(given)} (or use --judge hybrid)")
        else:
            chat = make_chat(model, base_url, api_key_env, llm_config, replay, store)
            if chat is None:
                raise InvalidArgument(f"--judge {judge_kind.value} needs a model: give --model (or --judge execution)")
        if extractor_model is not None:
            extractor = make_chat(extractor_model, base_url, api_key_env, llm_config, replay, store)
        try:
            with progress_bar(errors, "EquiBench") as update:
                run, progress, _ = run_equibench(config, store, chat=chat, extractor=extractor, authors=authors,
                                                 jobs=jobs, on_progress=update)
        except KeyboardInterrupt:
            errors.print("[yellow]interrupted: judged pairs are stored; run the same command to resume[/yellow]")
            raise typer.Exit(130) from None
        finally:
            for client in (chat, extractor):
                if client is not None:
                    client.close()
        summary = summarize(store, run)
    if progress.resumed:
        errors.print(f"[dim]{progress.resumed} pair(s) from the stored run {run.short_id} (resumed)[/dim]")
    with input_errors(False):
        render_equibench(console, summary, as_json, html, price_known=getattr(chat, "price_known", True))
    for message in progress.messages[:10]:
        errors.print(f"[yellow]  {message}[/yellow]", soft_wrap=True)


@equibench_app.command("show")
def equibench_show(
    run: Annotated[str, typer.Argument(help="Run id (or a unique prefix).")],
    as_json: JsonOpt = None,
    html: HtmlOpt = None,
    db: StoreOpt = None,
) -> None:
    """Print a stored EquiBench run again (nothing runs)."""
    from divergent.bench.equibench.run import summarize

    with input_errors(False), open_store(db) as store:
        check_outputs(as_json, html)
        summary = summarize(store, store.get_run(run))
        render_equibench(Console(), summary, as_json, html)


@equibench_app.command("list")
def equibench_list(db: StoreOpt = None) -> None:
    """The stored EquiBench runs."""
    from divergent.bench.equibench.run import equibench_runs

    with input_errors(False), open_store(db) as store:
        print_runs(
            f"EquiBench runs in {store.path}",
            ("run", "status", "created", "pairs", "judge", "model", "prompt", "categories"),
            ((r.short_id, r.status, r.created, str(r.unit_count), str(r.parameters.get("judge")),
              str(r.parameters.get("model") or "-"), str(r.parameters.get("prompt") or "-"),
              ",".join(r.parameters.get("categories", []))) for r in equibench_runs(store)),
        )



def render_equibench(console: Console, summary: Any, as_json: Path | None, html: Path | None = None, *,
                     price_known: bool = True) -> None:
    """The accuracy table (with the paper's best model beside ours), the bias and confusion figures;
    the results file and the HTML page when asked."""
    from divergent.bench.binary import percent
    from divergent.bench.equibench.run import PAPER_BEST, summary_json

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
        columns[-1:-1] = ["witnesses", "no diff", "not exec"]
    for column in columns:
        table.add_column(column, justify="left" if column == "category" else "right")
    for row in (*summary.categories, summary.overall):
        cells = [row.category, str(row.pairs), percent(row.confusion.accuracy), percent(row.confusion.accuracy_equivalent),
                 percent(row.confusion.accuracy_inequivalent), percent(row.coverage),
                 f"{row.unparseable}/{row.samples}" if row.samples else "-"]
        if judge != "llm":
            cells += [str(row.execution.get("inequivalent", 0)), str(row.execution.get("no-difference-found", 0)),
                      str(row.execution.get("not-executable", 0))]
        cells.append(PAPER_BEST.get(row.category, "-"))
        table.add_row(*cells, style="bold" if row.category == "overall" else None)
    console.print(table)
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
    if as_json is not None or html is not None:
        from divergent.bench.equibench.html import equibench_page

        write_results_files(console, summary_json(summary), as_json, html, equibench_page, price_known=price_known)
