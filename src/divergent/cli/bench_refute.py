"""``divergent bench refute``: counterexamples to wrong Codeforces submissions (REFUTE)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from divergent.cli.app import EXIT_ERROR, EXIT_SAME, input_errors
from divergent.cli.bench import bench_app
from divergent.cli.llm_options import (
    ApiKeyEnvOpt,
    BaseUrlOpt,
    LLMConfigOpt,
    ModelOpt,
    ReplayOpt,
    chat_model_from_options,
)

refute_app = typer.Typer(
    help="REFUTE: write inputs on which wrong competitive-programming solutions fail.",
    invoke_without_command=True,
    no_args_is_help=False,
)
bench_app.add_typer(refute_app, name="refute")

_PANEL = "Success rule"


@refute_app.callback()
def refute(
    context: typer.Context,
    data: Annotated[Path | None, typer.Option("--data", help="REFUTE rows: .jsonl, .json, .parquet, or a directory.")] = None,
    strategy: Annotated[
        str, typer.Option("--strategy", "-s", help="zero-shot, few-shot, zero-shot-oracle, agent, randsearch, "
                          "randsearch-oracle, divergent, hybrid (comma-separated), or all.")
    ] = "divergent",
    attempts: Annotated[int, typer.Option("--attempts", "-k", min=1, help="Attempts per problem (pass@k).")] = 1,
    problems: Annotated[str | None, typer.Option("--problems", help="Only these problem ids (comma-separated).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N problems.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Problems worked on at the same time.")] = 1,
    as_json: Annotated[Path | None, typer.Option("--json", help="Write the results to this file.")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="Write a self-contained HTML report to this file.")] = None,
    compat: Annotated[
        str, typer.Option("--compat", help="default (a crash, timeout or memory-limit of the wrong code on a valid "
                          "input is a success, as a hack) or refute (the authors' rule: it is not).",
                          rich_help_panel=_PANEL)
    ] = "default",
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Runs of the wrong and correct code per candidate.",
                                         rich_help_panel=_PANEL)] = 5,
    run_timeout: Annotated[float | None, typer.Option(
        "--run-timeout", help="Seconds per run of the wrong and correct code (default: 3x the problem's limit, "
        "2-30 s; 30 s with --compat refute).", rich_help_panel=_PANEL)] = None,
    no_validator: Annotated[bool, typer.Option(
        "--no-validator", help="Take every printed input as valid for rows without a validator.",
        rich_help_panel=_PANEL)] = False,
    loop_seconds: Annotated[float, typer.Option("--loop-seconds", min=0.1, help="RandSearch's stress loop (s).")] = 60.0,
    search_seconds: Annotated[float, typer.Option("--search-seconds", min=0.1,
                                                  help="divergent's search per attempt (divergent, hybrid) (s).")] = 60.0,
    prompt_templates: Annotated[Path | None, typer.Option(
        "--prompt-templates", help="The authors' template files (DIR/<method>_system.txt + _human.txt) instead of "
        "divergent's prompts.")] = None,
    prompt_variant: Annotated[str, typer.Option("--prompt-variant",
                                                help="chat or reasoning (their reasoning_* system files).")] = "chat",
    temperature: Annotated[float | None, typer.Option(
        "--temperature", help="Sampling temperature (default 0 with one attempt, 0.8 with more).")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, help="Token limit per answer.")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    db: Annotated[Path | None, typer.Option("--db", help="SQLite store (default: $DIVERGENT_HOME or "
                                            "~/.local/share/divergent).")] = None,
    isolation: Annotated[str | None, typer.Option("--isolation", help="bubblewrap, unshare or rlimits.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: ApiKeyEnvOpt = None,
    llm_config: LLMConfigOpt = None,
    replay: ReplayOpt = False,
) -> None:
    """Run (or resume) strategies on REFUTE rows; every attempt is stored, so the same command
    resumes a killed run and a finished one runs (and costs) nothing."""
    if context.invoked_subcommand is not None:
        return
    console = Console(stderr=True, quiet=quiet)
    with input_errors(False):
        from divergent.bench.refute.dataset import load_refute
        from divergent.bench.refute.evaluate import Rules
        from divergent.bench.refute.prompts import AuthorsPrompts, OurPrompts
        from divergent.bench.refute.strategies import parse_strategies
        from divergent.cli.outputs import check_output_paths
        from divergent.errors import InvalidArgument

        check_output_paths(("--json", as_json), ("--html", html))

        if data is None:
            raise InvalidArgument("--data: give the REFUTE rows (.jsonl, .json, .parquet or a directory)")
        chosen = parse_strategies(strategy)
        rules = Rules(compat=compat, repeats=repeats, run_timeout=run_timeout, require_validator=not no_validator)
        rows = load_refute(data)
        for problem in rows.problems[:10]:
            console.print(f"[yellow]{problem}[/yellow]", soft_wrap=True)
        prompts = AuthorsPrompts(prompt_templates, variant=prompt_variant) if prompt_templates else OurPrompts()
        selection = [p.strip() for p in problems.split(",") if p.strip()] if problems else None
        chat = chat_model_from_options(model, base_url, api_key_env, llm_config, replay)
        if chat is None and any(s.needs_model for s in chosen):
            names = ", ".join(s.name for s in chosen if s.needs_model)
            raise InvalidArgument(f"--strategy {names} needs a model: pass --model (divergent runs without one)")
        document = _run(console, rows, data, chosen, rules, prompts, chat, selection, limit, attempts, jobs,
                        temperature, max_tokens, loop_seconds, search_seconds, seed, db, isolation)
    _finish(document, as_json, html)


def _run(console: Console, rows: Any, data: Path, chosen: Any, rules: Any, prompts: Any, chat: Any,
         selection: list[str] | None, limit: int | None, attempts: int, jobs: int, temperature: float | None,
         max_tokens: int | None, loop_seconds: float, search_seconds: float, seed: int, db: Path | None,
         isolation: str | None) -> dict[str, Any]:
    from divergent.bench.refute.execution import open_code_runner
    from divergent.bench.refute.report import results_document
    from divergent.bench.refute.run import data_digest, run_refute
    from divergent.bench.refute.strategies import Context
    from divergent.store import Store

    if temperature is None:
        temperature = 0.0 if attempts == 1 else 0.8
    runner = open_code_runner(isolation=isolation)
    try:
        context = Context(runner=runner, rules=rules, chat=chat, prompts=prompts, temperature=temperature,
                          max_tokens=max_tokens, loop_seconds=loop_seconds, search_seconds=search_seconds, seed=seed)
        with Store(db) as store, _ProgressBar(console) as on_progress:
            try:
                result = run_refute(store, rows, chosen, context, digest=data_digest(data), attempts=attempts,
                                    problems=selection, limit=limit, jobs=jobs, on_progress=on_progress)
            except KeyboardInterrupt:
                console.print("[yellow]interrupted: finished attempts are stored; run the same command to "
                              "resume[/yellow]")
                raise typer.Exit(130) from None
            parameters = {
                "data": str(data.resolve()), "strategies": [s.name for s in chosen], "attempts": attempts,
                "problems": selection, "limit": limit, "temperature": temperature, "max_tokens": max_tokens,
                "prompts": prompts.fingerprint, "seed": seed, "loop_seconds": loop_seconds,
                "search_seconds": search_seconds, **rules.parameters(),
            }
            document = results_document(store, result, model=chat.model if chat else None, parameters=parameters)
    finally:
        runner.close()
        if chat is not None:
            chat.close()
    for name, progress in result.progress.items():
        if progress.resumed:
            console.print(f"[dim]{name}: {progress.resumed} attempt(s) from the stored run (resumed)[/dim]")
        for message in progress.messages[:10]:
            console.print(f"[yellow]{name}: {message}[/yellow]", soft_wrap=True)
    if result.stopped:
        console.print(f"[red]stopped: {result.stopped} (what was done is stored; the same command resumes)[/red]",
                      soft_wrap=True)
    return document


class _ProgressBar:
    """A progress bar on stderr (one task per strategy), or nothing when stderr is not a terminal."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.bar: Any = None
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> Any:
        if self.console.is_terminal and not self.console.quiet:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=self.console, transient=True)
            self.bar.start()
        return self.update

    def update(self, name: str, state: Any) -> None:
        if self.bar is None:
            return
        if name not in self.tasks:
            self.tasks[name] = self.bar.add_task(name, total=state.total)
        failed = f" ({state.failed} failed)" if state.failed else ""
        self.bar.update(self.tasks[name], completed=state.done, description=f"{name}{failed}")

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _finish(document: dict[str, Any], as_json: Path | None, html: Path | None) -> None:
    from divergent.bench.common import write_results
    from divergent.bench.refute.report import render_tables

    render_tables([document], Console())
    with input_errors(False):
        if as_json is not None:
            write_results(as_json, document)
        if html is not None:
            _write_html([document], html)
    raise typer.Exit(EXIT_SAME)


def _write_html(documents: list[dict[str, Any]], path: Path) -> None:
    from divergent.errors import InvalidArgument

    try:
        from divergent.bench.refute.html import write_refute_html

        write_refute_html(documents, path)
    except ImportError as error:
        raise InvalidArgument(f"--html: HTML reports are not available here ({error})") from None
    Console(stderr=True).print(f"[dim]HTML report written to {path}[/dim]")


@refute_app.command("report")
def report(
    files: Annotated[list[Path], typer.Argument(help="Results files written by --json (one per model).")],
    html: Annotated[Path | None, typer.Option("--html", help="Also write a self-contained HTML report.")] = None,
) -> None:
    """Print the tables of one or more results files (nothing runs)."""
    from divergent.bench.common import read_results
    from divergent.bench.refute.report import render_tables

    with input_errors(False):
        from divergent.cli.outputs import check_output_paths

        check_output_paths(("--html", html))
        documents = [read_results(path, "refute") for path in files]
    if not documents:
        raise typer.Exit(EXIT_ERROR)
    render_tables(documents, Console())
    if html is not None:
        with input_errors(False):
            _write_html(documents, html)
