"""``divergent bench refute run|show|list``: counterexamples to wrong Codeforces submissions (REFUTE)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from divergent.cli.application import input_errors, make_console
from divergent.cli.bench import bench_app
from divergent.cli.harness import (
    HtmlOpt,
    Output,
    StoredRuns,
    Where,
    add_stored_run_commands,
    harness_group,
    work,
    write_outputs,
)
from divergent.cli.llm_options import ModelAccess
from divergent.cli.option_groups import OptionGroup, with_option_groups

refute_app = harness_group("REFUTE: write inputs on which wrong competitive-programming solutions fail.")
bench_app.add_typer(refute_app, name="refute")

_PANEL = "Success rule"


@dataclass(frozen=True)
class RefuteOptions(OptionGroup):
    """REFUTE's own options: the rows, the strategies, the success rule and the strategies' limits."""

    data: Annotated[Path | None, typer.Option(
        "--data", help="REFUTE rows: .jsonl, .json, .parquet, or a directory.")] = None
    strategy: Annotated[
        str, typer.Option("--strategy", "-s", help="zero-shot, few-shot, zero-shot-oracle, agent, randsearch, "
                          "randsearch-oracle, divergent, hybrid (comma-separated), or all.")
    ] = "divergent"
    attempts: Annotated[int, typer.Option("--attempts", "-k", min=1, help="Attempts per problem (pass@k).")] = 1
    problems: Annotated[str | None, typer.Option("--problems", help="Only these problem ids (comma-separated).")] = None
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N problems.")] = None
    compat: Annotated[
        str, typer.Option("--compat", help="default (a crash, timeout or memory-limit of the wrong code on a valid "
                          "input is a success, as a hack) or refute (the authors' rule: it is not).",
                          rich_help_panel=_PANEL)
    ] = "default"
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Runs of the wrong and correct code per candidate.",
                                         rich_help_panel=_PANEL)] = 5
    run_timeout: Annotated[float | None, typer.Option(
        "--run-timeout", help="Seconds per run of the wrong and correct code (default: 3x the problem's limit, "
        "2-30 s; 30 s with --compat refute).", rich_help_panel=_PANEL)] = None
    no_validator: Annotated[bool, typer.Option(
        "--no-validator", help="Take every printed input as valid for rows without a validator.",
        rich_help_panel=_PANEL)] = False
    loop_seconds: Annotated[float, typer.Option("--loop-seconds", min=0.1, help="RandSearch's stress loop (s).")] = 60.0
    search_seconds: Annotated[float, typer.Option("--search-seconds", min=0.1,
                                                  help="divergent's search per attempt (divergent, hybrid) (s).")] = 60.0
    prompt_templates: Annotated[Path | None, typer.Option(
        "--prompt-templates", help="The authors' template files (DIR/<method>_system.txt + _human.txt) instead of "
        "divergent's prompts.")] = None
    prompt_variant: Annotated[str, typer.Option("--prompt-variant",
                                                help="chat or reasoning (their reasoning_* system files).")] = "chat"
    temperature: Annotated[float | None, typer.Option(
        "--temperature", help="Sampling temperature (default 0 with one attempt, 0.8 with more).")] = None
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, help="Token limit per answer.")] = None
    seed: Annotated[int, typer.Option("--seed", help="Seed of the searches and stress loops (attempt i: seed + i).")] = 0

    def config(self, notes: Console, chat: Any) -> Any:
        """The run's :class:`~divergent.bench.refute.run.RefuteConfig` (the rows read; what loading
        them had to say printed on ``notes``): its strategies ask ``chat``; the caller gives them
        their code runner, once the options are known to be good."""
        from divergent.bench.refute.dataset import load_refute
        from divergent.bench.refute.evaluate import Rules
        from divergent.bench.refute.prompts import OurPrompts, RefuteAuthorsPrompts
        from divergent.bench.refute.run import RefuteConfig, data_digest
        from divergent.bench.refute.strategies import Context, parse_strategies
        from divergent.errors import InvalidArgument

        if self.data is None:
            raise InvalidArgument("--data: give the REFUTE rows (.jsonl, .json, .parquet or a directory)")
        chosen = parse_strategies(self.strategy)
        rules = Rules(compat=self.compat, repeats=self.repeats, run_timeout=self.run_timeout,
                      require_validator=not self.no_validator)
        rows = load_refute(self.data)
        for problem in rows.problems[:10]:
            notes.print(Text(problem, style="yellow"), soft_wrap=True)  # may quote an endpoint: never markup
        prompts = (RefuteAuthorsPrompts(self.prompt_templates, variant=self.prompt_variant) if self.prompt_templates
                   else OurPrompts())
        if chat is None and any(s.needs_model for s in chosen):
            names = ", ".join(s.name for s in chosen if s.needs_model)
            raise InvalidArgument(f"--strategy {names} needs a model: pass --model (divergent runs without one)")
        temperature = self.temperature if self.temperature is not None else 0.0 if self.attempts == 1 else 0.8
        context = Context(runner=None, rules=rules, chat=chat, prompts=prompts, temperature=temperature,
                          max_tokens=self.max_tokens, loop_seconds=self.loop_seconds,
                          search_seconds=self.search_seconds, seed=self.seed)
        selection = [p.strip() for p in self.problems.split(",") if p.strip()] if self.problems else None
        return RefuteConfig(rows, chosen, context, data_digest(self.data), attempts=self.attempts,
                            problems=selection, limit=self.limit)

    def parameters(self, config: Any) -> dict[str, Any]:
        """The results document's ``parameters``."""
        context = config.context
        return {
            "data": str(Path(str(self.data)).resolve()), "strategies": [s.name for s in config.strategies],
            "attempts": config.attempts, "problems": config.problems, "limit": config.limit,
            "temperature": context.temperature, "max_tokens": context.max_tokens,
            "prompts": context.prompts.fingerprint, "seed": context.seed, "loop_seconds": context.loop_seconds,
            "search_seconds": context.search_seconds, **context.rules.parameters(),
        }


@refute_app.command("run")
@with_option_groups
def run(options: RefuteOptions, output: Output, where: Where, model: ModelAccess) -> None:
    """Run (or resume) strategies on REFUTE rows; every attempt is stored, so the same command
    resumes a killed run and a finished one runs (and costs) nothing."""
    from divergent.bench.refute.benchmark import REFUTE
    from divergent.bench.refute.execution import open_code_runner
    from divergent.bench.refute.report import results_document

    notes = output.notes()
    with input_errors(output.prints_json):
        output.check()
        chat = model.client()
        runner = None
        try:
            config = options.config(notes, chat)
            runner = open_code_runner(isolation=where.isolation)
            config = replace(config, context=replace(config.context, runner=runner))

            def document(store: Any, worked: Any) -> dict[str, Any]:
                return results_document(store, worked, model=chat.model if chat else None,
                                        parameters=options.parameters(config))

            ran = work(REFUTE, config, output, where, label="REFUTE", kept="finished attempts are stored",
                       models=lambda _store: [chat], score=document)
        finally:
            if runner is not None:
                runner.close()
            if chat is not None:
                chat.close()
        result = ran.worked
        for name, progress in result.by_strategy.items():
            if progress.resumed:
                notes.print(f"[dim]{name}: {progress.resumed} attempt(s) from the stored run (resumed)[/dim]")
            for message in progress.messages[:10]:
                notes.print(Text(f"{name}: {message}", style="yellow"), soft_wrap=True)
        if result.stopped:
            notes.print(Text(f"stopped: {result.stopped} (what was done is stored; the same command resumes)",
                             style="red"), soft_wrap=True)
        _print_and_write([ran.summary], output.as_json, output.html, output.quiet)


def _print_and_write(documents: list[dict[str, Any]], as_json: Path | None, html: Path | None, quiet: bool) -> None:
    from divergent.bench.refute.html import refute_page
    from divergent.bench.refute.report import render_tables
    from divergent.errors import InvalidArgument

    if as_json is None or str(as_json) != "-":
        render_tables(documents, make_console())
    if as_json is not None and len(documents) != 1:
        raise InvalidArgument("--json and --json-file write one results document: show one model's runs (or one file) with it")
    write_outputs(documents[0] if as_json is not None else {}, as_json, html,
                  lambda _: refute_page(documents), quiet=quiet)


def _show(console: Console, store: Any, references: Sequence[str], output: Output) -> None:
    """Stored runs (one per strategy, of one model) make one document; each results file is one."""
    from divergent.bench.common import read_results
    from divergent.bench.refute.report import stored_document

    files = [Path(reference) for reference in references if Path(reference).is_file()]
    runs = [store.get_run(reference) for reference in references if not Path(reference).is_file()]
    documents = [read_results(path, "refute") for path in files]
    if runs:
        documents.append(stored_document(store, runs))
    _print_and_write(documents, output.as_json, output.html, output.quiet)


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
        Output(html=html).check()
        _print_and_write([read_results(path, "refute") for path in files], None, html, False)
