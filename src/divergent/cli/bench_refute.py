"""``divergent bench refute run|show|list``: counterexamples to wrong Codeforces submissions (REFUTE)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
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
    open_store,
    prints_json,
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

refute_app = harness_group("REFUTE: write inputs on which wrong competitive-programming solutions fail.")
bench_app.add_typer(refute_app, name="refute")

_PANEL = "Success rule"


@refute_app.command("run")
def run(
    data: Annotated[Path | None, typer.Option("--data", help="REFUTE rows: .jsonl, .json, .parquet, or a directory.")] = None,
    strategy: Annotated[
        str, typer.Option("--strategy", "-s", help="zero-shot, few-shot, zero-shot-oracle, agent, randsearch, "
                          "randsearch-oracle, divergent, hybrid (comma-separated), or all.")
    ] = "divergent",
    attempts: Annotated[int, typer.Option("--attempts", "-k", min=1, help="Attempts per problem (pass@k).")] = 1,
    problems: Annotated[str | None, typer.Option("--problems", help="Only these problem ids (comma-separated).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N problems.")] = None,
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
    seed: Annotated[int, typer.Option("--seed", help="Seed of the searches and stress loops (attempt i: seed + i).")] = 0,
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
    """Run (or resume) strategies on REFUTE rows; every attempt is stored, so the same command
    resumes a killed run and a finished one runs (and costs) nothing."""
    from divergent.bench.refute.dataset import load_refute
    from divergent.bench.refute.evaluate import Rules
    from divergent.bench.refute.prompts import OurPrompts, RefuteAuthorsPrompts
    from divergent.bench.refute.strategies import parse_strategies
    from divergent.errors import InvalidArgument

    notes = make_console(stderr=True, quiet=quiet)
    with input_errors(prints_json(as_json)):
        if data is None:
            raise InvalidArgument("--data: give the REFUTE rows (.jsonl, .json, .parquet or a directory)")
        check_outputs(as_json, html)
        where = executor_settings(executor, address, jobs)
        chosen = parse_strategies(strategy)
        rules = Rules(compat=compat, repeats=repeats, run_timeout=run_timeout, require_validator=not no_validator)
        rows = load_refute(data)
        for problem in rows.problems[:10]:
            notes.print(Text(problem, style="yellow"), soft_wrap=True)  # may quote an endpoint: never markup
        prompts = RefuteAuthorsPrompts(prompt_templates, variant=prompt_variant) if prompt_templates else OurPrompts()
        selection = [p.strip() for p in problems.split(",") if p.strip()] if problems else None
        chat = chat_model_from_options(model, base_url, api_key_env, llm_config, replay)
        if chat is None and any(s.needs_model for s in chosen):
            names = ", ".join(s.name for s in chosen if s.needs_model)
            raise InvalidArgument(f"--strategy {names} needs a model: pass --model (divergent runs without one)")
        document = _run(notes, rows, data, chosen, rules, prompts, chat, selection, limit, attempts, where,
                        temperature, max_tokens, loop_seconds, search_seconds, seed, db, isolation, quiet)
        _print_and_write([document], as_json, html, quiet)


def _run(notes: Console, rows: Any, data: Path, chosen: Any, rules: Any, prompts: Any, chat: Any,
         selection: list[str] | None, limit: int | None, attempts: int, where: Any, temperature: float | None,
         max_tokens: int | None, loop_seconds: float, search_seconds: float, seed: int, db: Path | None,
         isolation: str | None, quiet: bool) -> dict[str, Any]:
    from divergent.bench.refute.execution import open_code_runner
    from divergent.bench.refute.report import results_document
    from divergent.bench.refute.run import data_digest, run_refute
    from divergent.bench.refute.strategies import Context
    from divergent.executors.settings import open_executor

    if temperature is None:
        temperature = 0.0 if attempts == 1 else 0.8
    runner = open_code_runner(isolation=isolation)
    try:
        context = Context(runner=runner, rules=rules, chat=chat, prompts=prompts, temperature=temperature,
                          max_tokens=max_tokens, loop_seconds=loop_seconds, search_seconds=search_seconds, seed=seed)
        with open_store(db) as store:
            try:
                with open_executor(where) as workers, item_progress(notes, "REFUTE", quiet=quiet) as update:
                    result = run_refute(store, rows, chosen, context, digest=data_digest(data), attempts=attempts,
                                        problems=selection, limit=limit, executor=workers,
                                        on_progress=lambda name, state: update(state, description=name))
            except KeyboardInterrupt:
                raise interrupted("finished attempts are stored") from None
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
            notes.print(f"[dim]{name}: {progress.resumed} attempt(s) from the stored run (resumed)[/dim]")
        for message in progress.messages[:10]:
            notes.print(Text(f"{name}: {message}", style="yellow"), soft_wrap=True)
    if result.stopped:
        notes.print(Text(f"stopped: {result.stopped} (what was done is stored; the same command resumes)", style="red"),
                    soft_wrap=True)
    return document


def _print_and_write(documents: list[dict[str, Any]], as_json: Path | None, html: Path | None, quiet: bool) -> None:
    from divergent.bench.refute.html import refute_page
    from divergent.bench.refute.report import render_tables
    from divergent.errors import InvalidArgument

    if not prints_json(as_json):
        render_tables(documents, make_console())
    if as_json is not None and len(documents) != 1:
        raise InvalidArgument("--json and --json-file write one results document: show one model's runs (or one file) with it")
    write_outputs(documents[0] if as_json is not None else {}, as_json, html,
                  lambda _: refute_page(documents), quiet=quiet)


def _show(console: Console, store: Any, references: Sequence[str], as_json: Path | None, html: Path | None,
          quiet: bool) -> None:
    """Stored runs (one per strategy, of one model) make one document; each results file is one."""
    from divergent.bench.common import read_results
    from divergent.bench.refute.report import stored_document

    files = [Path(reference) for reference in references if Path(reference).is_file()]
    runs = [store.get_run(reference) for reference in references if not Path(reference).is_file()]
    documents = [read_results(path, "refute") for path in files]
    if runs:
        documents.append(stored_document(store, runs))
    _print_and_write(documents, as_json, html, quiet)


def _row(record: Any) -> tuple[str, ...]:
    parameters = record.parameters
    return (str(parameters.get("strategy")), str(parameters.get("model") or "-"),
            str(parameters.get("data", ""))[:12])


add_stored_run_commands(refute_app, StoredRuns(
    title="REFUTE", kinds=("refute",), columns=("strategy", "model", "data"), row=_row, show=_show,
    show_help="Stored runs (one per strategy, of one model), or results files written by --json-file (one per model).",
))


@refute_app.command("report", hidden=True)
def report(
    files: Annotated[list[Path], typer.Argument(help="Results files written by --json-file (one per model).")],
    html: HtmlOpt = None,
) -> None:
    """The older name of ``show FILE...``."""
    from divergent.bench.common import read_results

    with input_errors(False):
        check_outputs(None, html)
        _print_and_write([read_results(path, "refute") for path in files], None, html, False)
