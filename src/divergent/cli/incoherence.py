"""``divergent incoherence``: estimate correctness without an oracle from an LLM's samples."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from divergent.cli.app import EXIT_SAME, app, input_errors, progress_bar, stderr_console
from divergent.cli.llm_options import ApiKeyEnvOpt, BaseUrlOpt, LLMConfigOpt, ModelOpt, ReplayOpt
from divergent.cli.outputs import check_output_paths, write_html_report

incoherence_app = typer.Typer(
    help="Incoherence of LLM samples (DiffTrust): error and incoherence per task, per model.",
    invoke_without_command=True,
    no_args_is_help=False,
)
app.add_typer(incoherence_app, name="incoherence")

HtmlOpt = Annotated[
    Path | None, typer.Option("--html", help="Also write a self-contained HTML report (table, charts) to this file.")
]
StoreOpt = Annotated[
    Path | None, typer.Option("--db", help="SQLite store (default: $DIVERGENT_HOME or ~/.local/share/divergent).")
]


def _open_store(db: Path | None) -> Any:
    from divergent.store import Store

    return Store(db)


@incoherence_app.callback()
def incoherence(
    context: typer.Context,
    tasks: Annotated[str | None, typer.Option("--tasks", help="humaneval, mbpp, or a tasks .jsonl file.")] = None,
    samples: Annotated[
        str | None, typer.Option("--samples", help="Recorded samples (.jsonl[.gz]) or a directory of files per task.")
    ] = None,
    models: Annotated[str | None, typer.Option("--models", help="Comma-separated model@temperature.")] = None,
    m: Annotated[int, typer.Option("-m", help="Samples per task.", min=2)] = 10,
    n: Annotated[int, typer.Option("-n", help="Inputs per task.", min=1)] = 1000,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    inputs: Annotated[
        str,
        typer.Option("--inputs", help="draws (n draws of Gen(d), repeats kept and run once) or distinct "
                     "(n different inputs)."),
    ] = "draws",
    validity: Annotated[
        str,
        typer.Option("--validity", help="auto (gt-raises with --compat difftrust and on MBPP, else gt-timeout), "
                     "gt-timeout (drop inputs the ground truth times out on) or gt-raises (and those it raises on)."),
    ] = "auto",
    compat: Annotated[str, typer.Option("--compat", help="default or difftrust (the artifact's comparison).")] = "default",
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per call.")] = 2.0,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", help="Tasks run at the same time (default: 1; with Ray, the cluster's CPUs).",
                     min=1),
    ] = None,
    executor: Annotated[
        str, typer.Option("--executor", help="threads (this machine) or ray (a Ray cluster: divergent[ray]).")
    ] = "threads",
    address: Annotated[
        str | None,
        typer.Option("--address", help="With --executor ray: the cluster (HOST:PORT, auto, ray://HOST:10001); "
                     "default: start a local instance."),
    ] = None,
    limit_tasks: Annotated[int | None, typer.Option("--limit-tasks", help="Only the first N tasks.")] = None,
    task_budget: Annotated[
        float | None,
        typer.Option("--task-budget", min=1.0,
                     help="Wall seconds per task (all models); a task over it is left out, as the artifact did."),
    ] = None,
    as_json: Annotated[Path | None, typer.Option("--json", help="Write the results as JSON to this file.")] = None,
    html: HtmlOpt = None,
    epsilon: Annotated[float | None, typer.Option("--epsilon", help="PAC: the tolerance ε.")] = None,
    delta: Annotated[float | None, typer.Option("--delta", help="PAC: the failure probability δ.")] = None,
    db: StoreOpt = None,
    isolation: Annotated[str | None, typer.Option("--isolation")] = None,
    model: ModelOpt = None,
    temperature: Annotated[
        float | None,
        typer.Option("--temperature", help="Live sampling: the model's temperature (default 0.6, as in the paper).",
                     rich_help_panel="Language model"),
    ] = None,
    base_url: BaseUrlOpt = None,
    api_key_env: ApiKeyEnvOpt = None,
    llm_config: LLMConfigOpt = None,
    replay: ReplayOpt = False,
) -> None:
    """Run (or resume) a study, or print PAC sample sizes with --epsilon/--delta.

    Without --samples, the programs are sampled live from --model (m per task, cached)."""
    if context.invoked_subcommand is not None:
        return
    console = Console()
    with input_errors(False):
        check_output_paths(("--html", html), ("--json", as_json))
        if epsilon is not None or delta is not None:
            _print_pac(console, epsilon, delta)
            raise typer.Exit(EXIT_SAME)
        live = _live_source(samples, models, model, temperature, base_url, api_key_env, llm_config, replay)
        if not tasks or not (samples or live):
            from divergent.errors import InvalidArgument

            raise InvalidArgument("give --tasks and --samples, or --tasks and --model to sample live "
                                  "(or --epsilon/--delta, or a subcommand: list, show)")
        from divergent.incoherence.executors import Executor, choose_executor
        from divergent.incoherence.inputs import InputMode
        from divergent.incoherence.run import Validity
        from divergent.incoherence.study import StudyConfig, model_specs, run_study, summarize

        try:
            validity_rule = Validity(validity)
        except ValueError:
            from divergent.errors import InvalidArgument

            raise InvalidArgument(f"--validity {validity!r}: choose auto, gt-timeout or gt-raises") from None
        try:
            input_mode = InputMode(inputs)
        except ValueError:
            from divergent.errors import InvalidArgument

            raise InvalidArgument(f"--inputs {inputs!r}: choose draws or distinct") from None
        if choose_executor(executor, address) is Executor.RAY:
            from divergent.incoherence.ray_executor import check_reachable, require_ray

            require_ray()  # before anything is stored
            check_reachable(address)
        config = StudyConfig(
            tasks=tasks, samples=samples or "", models=model_specs(live.label if live else models), m=m, n=n, seed=seed,
            validity=validity_rule, compat=compat, timeout=timeout, limit_tasks=limit_tasks, task_budget=task_budget,
            inputs=input_mode,
        )
        with _open_store(db) as store, _sampling(console, live), \
                progress_bar(stderr_console(False), "units (model × task)") as update:

            def show(progress: Any) -> None:
                update(completed=progress.done, total=progress.total,
                       note=f"{progress.failed} failed" if progress.failed else "")

            try:
                run, progress = run_study(config, store, jobs=jobs, isolation=isolation, on_progress=show,
                                          executor=executor, address=address, live=live)
            except KeyboardInterrupt:
                console.print("[yellow]interrupted: finished units are stored; run the same command to resume[/yellow]")
                raise typer.Exit(130) from None
            summary = summarize(store, run)
    _render(console, summary, as_json, html)
    _report_skipped(console, progress)


def _report_skipped(console: Console, progress: Any) -> None:
    if progress.skipped_lines:
        console.print(f"[yellow]{progress.skipped_lines} malformed line(s) skipped[/yellow]")
    if progress.unknown_tasks:
        console.print(f"[yellow]{progress.unknown_tasks} sample(s) for unknown task ids skipped[/yellow]")
    for message in progress.messages[:20]:
        console.print(f"[yellow]  {message}[/yellow]", soft_wrap=True)


@incoherence_app.command("show")
def show(
    run: Annotated[str, typer.Argument(help="Run id (or a unique prefix).")],
    as_json: Annotated[Path | None, typer.Option("--json", help="Write the results as JSON to this file.")] = None,
    html: HtmlOpt = None,
    db: StoreOpt = None,
) -> None:
    """Re-render a stored run without executing anything."""
    from divergent.incoherence.study import summarize

    console = Console()
    with input_errors(False), _open_store(db) as store:
        check_output_paths(("--html", html), ("--json", as_json))
        summary = summarize(store, store.get_run(run))
    _render(console, summary, as_json, html)


@incoherence_app.command("list")
def list_runs(db: StoreOpt = None) -> None:
    """The stored incoherence runs."""
    from divergent.incoherence.study import study_runs

    console = Console()
    with input_errors(False), _open_store(db) as store:
        table = Table(title=f"incoherence runs in {store.path}")
        for column in ("run", "status", "created", "units", "tasks", "models", "m", "n", "compat"):
            table.add_column(column)
        for record in study_runs(store):
            p = record.parameters
            table.add_row(
                record.short_id, record.status, record.created, str(record.unit_count), str(p.get("tasks")),
                ", ".join(p.get("models") or ["all"]), str(p.get("m")), str(p.get("n")), str(p.get("compat")),
            )
        console.print(table)


def _print_pac(console: Console, epsilon: float | None, delta: float | None) -> None:
    from divergent.errors import InvalidArgument
    from divergent.incoherence.metrics import pac_detection_samples, pac_estimation_samples

    if epsilon is None or delta is None:
        raise InvalidArgument("PAC sample sizes need both --epsilon and --delta")
    console.print(
        f"to estimate incoherence within ε={epsilon:g} with probability ≥ {1 - delta:g} (Theorem 4.2): "
        f"[bold]{pac_estimation_samples(epsilon, delta):,}[/bold] samples"
    )
    console.print(
        f"to detect incoherence > ε={epsilon:g} with probability ≥ {1 - delta:g} (Theorem 4.3): "
        f"[bold]{pac_detection_samples(epsilon, delta):,}[/bold] samples"
    )


def _fmt(value: float | None) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4f}"


def _render(console: Console, summary: Any, as_json: Path | None, html: Path | None = None) -> None:
    from divergent.incoherence.study import summary_json

    table = Table(title=f"incoherence run {summary.run.short_id} ({summary.run.status})")
    for column in ("model", "T", "tasks", "mean error", "mean incoherence", "pass@1", "spearman",
                   "detection rate", "undetected mean error"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for s in summary.models:
        metrics = s.metrics
        table.add_row(
            s.model, f"{s.temperature:g}" if s.temperature is not None else "-", str(len(s.tasks)),
            _fmt(metrics.mean_error), _fmt(metrics.mean_incoherence), _fmt(metrics.pass_at_1),
            _fmt(metrics.error_incoherence_spearman), _fmt(metrics.detection_rate),
            _fmt(metrics.undetected_mean_error),
        )
    console.print(table)
    if summary.ranking is not None:
        console.print(f"ranking agreement across models (Figure 1), Spearman: {_fmt(summary.ranking.ranking_spearman)}")
    if summary.failed_units:
        console.print(f"[yellow]{summary.failed_units} unit(s) could not be measured (see the store)[/yellow]")
    if as_json is not None:
        as_json.write_text(json.dumps(summary_json(summary), indent=1))
        console.print(f"results written to {as_json}")
    if html is not None:
        from divergent.report.html import incoherence_page

        with input_errors(False):
            write_html_report(incoherence_page(summary_json(summary)), html, console)


def _live_source(
    samples: str | None,
    models: str | None,
    model: str | None,
    temperature: float | None,
    base_url: str | None,
    api_key_env: str | None,
    llm_config: Path | None,
    replay: bool,
) -> Any:
    """An LLMCandidates when the programs are to be sampled live, None for recorded samples."""
    from divergent.errors import InvalidArgument

    llm_flags = [flag for flag, value in (("--model", model), ("--temperature", temperature), ("--base-url", base_url),
                                          ("--api-key-env", api_key_env), ("--llm-config", llm_config),
                                          ("--replay", replay or None)) if value is not None]
    if samples:
        if llm_flags:
            raise InvalidArgument(f"--samples reads recorded programs; {', '.join(llm_flags)} is for sampling them "
                                  "live: give one or the other")
        return None
    from divergent.cli.llm_options import chat_model_from_options

    chat = chat_model_from_options(model, base_url, api_key_env, llm_config, replay)
    if chat is None:
        if temperature is not None:
            raise InvalidArgument("--temperature is for live sampling: give --model too")
        return None
    if models:
        chat.close()
        raise InvalidArgument("--models picks among recorded samples; with live sampling the model is --model")
    from divergent.datasets.sampling import LLMCandidates

    try:
        return LLMCandidates(chat, 0.6 if temperature is None else temperature, parallel=chat.settings.concurrency)
    except InvalidArgument:
        chat.close()
        raise


@contextmanager
def _sampling(console: Console, live: Any) -> Iterator[None]:
    """Close the live source and its client at the end, and say what the sampling cost (also on errors)."""
    if live is None:
        yield
        return
    try:
        yield
    finally:
        live.close()
        live.chat.close()
        usage = live.chat.usage()
        cost = f"${usage.cost:.4f}" if live.chat.price_known else "cost unknown (no price for this model)"
        console.print(f"live sampling {live.label}: {live.sampled} samples, {usage.calls} model calls "
                      f"({usage.cached_calls} from the cache, {usage.retries} retries), "
                      f"{usage.prompt_tokens + usage.completion_tokens:,} tokens, {cost}")
        if live.no_code:
            console.print(f"[yellow]{live.no_code} sample(s) without code count as programs that never work[/yellow]")
            for note in live.notes[:10]:
                console.print(f"[yellow]  {note}[/yellow]")
