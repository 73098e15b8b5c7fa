"""``divergent bench cetbench generate|run|show|list``: CETBench pairs made from tasks and recorded
samples (Algorithm 1), and judges scored on them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

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

cetbench_app = harness_group("CETBench: equivalence under simple perturbations (generate pairs, judge them).")
bench_app.add_typer(cetbench_app, name="cetbench")


@cetbench_app.command("generate")
def generate(
    tasks: Annotated[str, typer.Option("--tasks", help="humaneval, mbpp, a tasks file, or a DIR with tasks.jsonl.")],
    out: Annotated[Path, typer.Option("--out", help="The pairs file to write (JSON lines).", metavar="FILE")],
    samples: Annotated[
        str | None, typer.Option("--samples", help="Recorded samples (default: the DiffTrust files for humaneval/mbpp).")
    ] = None,
    count: Annotated[int, typer.Option("--count", min=1, help="Pairs to make.")] = 400,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the schedule and of every random choice.")] = 1,
    k_max: Annotated[int, typer.Option("--k-max", min=1, max=20, help="Most perturbations per pair.")] = 5,
    max_tries: Annotated[int, typer.Option("--max-tries", min=1, help="Tries per step.")] = 5,
    check_executions: Annotated[
        int, typer.Option("--check-executions", min=10, help="divergent's budget per preserving step (executions).")
    ] = 2000,
    per_task: Annotated[int, typer.Option("--per-task", min=1, help="Recorded samples per model and task.")] = 5,
    limit_tasks: Annotated[int | None, typer.Option("--limit-tasks", min=2, help="Only the first N tasks.")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per test run.")] = 1.0,
    pair_budget: Annotated[float, typer.Option(
        "--pair-budget", min=0.0, help="Seconds per pair; a pair past it is skipped (counted, stored). 0: no limit.")
    ] = 30.0,
    force: Annotated[bool, typer.Option("--force", help="Start again (a new stored run, a new --out) instead of "
                                        "resuming.")] = False,
    as_json: JsonOpt = None,
    quiet: QuietOpt = False,
    db: StoreOpt = None,
    jobs: JobsOpt = None,
    executor: ExecutorOpt = "threads",
    address: AddressOpt = None,
    isolation: IsolationOpt = None,
) -> None:
    """Make CETBench pairs (stored one by one: the same command resumes an interrupted run) and write
    them to --out."""
    from divergent.bench.cetbench.generate import GeneratorSettings
    from divergent.bench.cetbench.generation import generate_pairs, generation_parameters
    from divergent.bench.cetbench.pairs import load_material
    from divergent.executors.settings import open_executor

    notes = make_console(stderr=True, quiet=quiet)
    with input_errors(prints_json(as_json)):
        check_outputs(as_json, None)
        from divergent.cli.outputs import check_output_paths

        check_output_paths(("--out", out))
        where = executor_settings(executor, address, jobs)
        settings = GeneratorSettings(count=count, seed=seed, k_max=k_max, max_tries=max_tries,
                                     check_executions=check_executions, timeout=timeout, isolation=isolation,
                                     pair_budget=pair_budget or None)
        task_set, by_task = load_material(tasks, samples, per_task=per_task, limit_tasks=limit_tasks)
        if not any(by_task.values()):  # pairs are made from samples: without any, nothing would be made
            from divergent.errors import InvalidArgument

            where = f"in {samples}" if samples else "(give --samples FILE: recorded samples, JSON lines)"
            raise InvalidArgument(f"no recorded samples for the tasks of {tasks} {where}; CETBench pairs are made "
                                  "from them")
        parameters = generation_parameters(tasks, samples, per_task, limit_tasks, settings)
        with open_store(db) as store:
            try:
                with open_executor(where) as workers, item_progress(notes, "CETBench pairs", quiet=quiet) as update:
                    generation = generate_pairs(store, list(task_set), by_task, settings, parameters, out,
                                                fresh=force, executor=workers, on_progress=update)
            except KeyboardInterrupt:
                raise interrupted(f"the pairs made so far are stored (and in {out})") from None
        document = _generation_document(generation, tasks)
        if not prints_json(as_json):
            _render_generation(make_console(), generation, out, len(task_set), sum(map(len, by_task.values())))
        write_outputs(document, as_json, None, None, quiet=quiet)


def _generation_document(generation: Any, tasks: str) -> dict[str, Any]:
    from divergent.bench.common import results_envelope

    return results_envelope("cetbench-generate", generation.run, summary={"tasks": tasks, **generation.stats.as_dict()},
                            items=[{"key": pair["pair_id"], **pair} for pair in generation.pairs])


def _render_generation(console: Console, generation: Any, out: Path, tasks: int, samples: int) -> None:
    from divergent.report.tables import fitted

    stats = generation.stats.as_dict()
    progress = generation.progress
    console.print(f"{stats['pairs']} pair(s) in {out} ({generation.made_now} made now, {progress.resumed} position(s) "
                  f"from the stored run {generation.run.short_id}), {stats['dropped']} dropped, "
                  f"{sum(stats['skipped'].values())} skipped; {tasks} tasks, "
                  f"{samples} recorded samples; {progress.seconds:.1f} s now, {stats['test_runs']} versions tested, "
                  f"{stats['checks']} divergent checks", soft_wrap=True)
    table = Table(title="perturbation steps")
    for column in ("type/flag", "tried", "accepted", "rejected"):
        table.add_column(column, justify="left" if column == "type/flag" else "right")
    for name, row in stats["steps"].items():
        rate = row["rejection_rate"]
        table.add_row(name, str(row["tried"]), str(row["accepted"]), "-" if rate is None else f"{100 * rate:.0f}%")
    console.print(fitted(table))
    for reason, count in {**stats["skipped"], **stats["rejections"], **stats["originals_rejected"]}.items():
        console.print(f"  {count:5d}  {reason}", soft_wrap=True)


@cetbench_app.command("run")
def run(
    pairs: Annotated[Path, typer.Option("--pairs", help="A pairs file from `cetbench generate` (JSON lines).",
                                        metavar="FILE")],
    judge: Annotated[str, typer.Option("--judge", help="llm, execution (no model) or hybrid.")] = "llm",
    prompt: Annotated[str, typer.Option("--prompt", help="basic or cot.")] = "basic",
    samples: Annotated[int, typer.Option("--samples", min=1, help="Answers per pair; majority vote.")] = 1,
    temperature: Annotated[float | None, typer.Option(
        "--temperature", help="Default: 0 for one sample, 1 for several.")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, help="Token limit per answer.")] = None,
    originals: Annotated[bool, typer.Option("--originals", help="Judge the unperturbed pairs too.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N pairs.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the search and of tie-breaking coins.")] = 0,
    budget: Annotated[float, typer.Option("--budget", min=0.1, help="Execution: seconds per pair.")] = 5.0,
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
    """Judge CETBench pairs (or resume the stored run with the same options) and print the paper's metrics."""
    from divergent.bench.cetbench.run import CetConfig, CetPrompt, run_cetbench, summarize
    from divergent.bench.equibench.run import JudgeKind
    from divergent.errors import InvalidArgument
    from divergent.executors.settings import open_executor

    notes = make_console(stderr=True, quiet=quiet)
    chat = None
    with input_errors(prints_json(as_json)):
        check_outputs(as_json, html)
        where = executor_settings(executor, address, jobs)
        judge_kind = JudgeKind.parse(judge)
        config = CetConfig(pairs=str(pairs), judge=judge_kind, prompt=CetPrompt.parse(prompt), samples=samples,
                           temperature=temperature, max_tokens=max_tokens, seed=seed, limit=limit,
                           originals=originals, budget=budget, isolation=isolation)
        if not judge_kind.needs_model:
            no_model_flags("--judge execution (or use --judge hybrid)", model=model, base_url=base_url,
                           replay=replay, api_key_env=api_key_env, llm_config=llm_config)
        with open_store(db) as store:
            if judge_kind.needs_model:
                chat = chat_model_from_options(model, base_url, api_key_env, llm_config, replay, store=store)
                if chat is None:
                    raise InvalidArgument(f"--judge {judge_kind.value} needs a model: give --model (or --judge "
                                          "execution)")
            try:
                with open_executor(where) as workers, item_progress(notes, "CETBench", quiet=quiet) as update:
                    record, _progress, bad_lines = run_cetbench(config, store, chat=chat, executor=workers,
                                                                on_progress=update)
            except KeyboardInterrupt:
                raise interrupted("judged pairs are stored") from None
            finally:
                if chat is not None:
                    chat.close()
            summary = summarize(store, record)
        if bad_lines:
            notes.print(f"[yellow]{bad_lines} line(s) of {pairs} could not be used[/yellow]")
        render_cetbench(make_console(quiet=prints_json(as_json)), summary, as_json, html,
                        price_known=chat.price_known if chat is not None else True, quiet=quiet)


def _show(console: Console, store: Any, references: Sequence[str], as_json: Path | None, html: Path | None,
          quiet: bool) -> None:
    from divergent.bench.cetbench.generation import GENERATION_KIND, stored_generation
    from divergent.bench.cetbench.run import summarize
    from divergent.errors import InvalidArgument

    record = single_run(store, references, "CETBench")
    if record.kind == GENERATION_KIND:
        generation = stored_generation(store, record)
        if html is not None:
            raise InvalidArgument("--html: a generation run has no HTML report (judge its pairs with `run`)")
        console.print(f"generation run {record.short_id} ({record.status}) of {record.parameters.get('tasks')}, "
                      f"seed {record.parameters.get('seed')}:", soft_wrap=True)
        _render_generation(console, generation, Path("(the store)"), 0, 0)
        write_outputs(_generation_document(generation, str(record.parameters.get("tasks"))), as_json, None, None,
                      quiet=quiet)
        return
    render_cetbench(console, summarize(store, record), as_json, html, quiet=quiet)


def _row(record: Any) -> tuple[str, ...]:
    parameters = record.parameters
    if record.kind == "bench-cetbench-generate":
        return ("generate", "-", "-", f"{parameters.get('tasks')} (count {parameters.get('count')})")
    return (str(parameters.get("judge")), str(parameters.get("model") or "-"), str(parameters.get("prompt") or "-"),
            str(parameters.get("pairs")))


add_stored_run_commands(cetbench_app, StoredRuns(
    title="CETBench", kinds=("bench-cetbench", "bench-cetbench-generate"), columns=("judge", "model", "prompt", "pairs"),
    row=_row, show=_show,
))


def render_cetbench(console: Console, summary: Any, as_json: Path | None, html: Path | None = None, *,
                    price_known: bool = True, quiet: bool = False) -> None:
    """The paper's Table 2 (accuracy per category and flag, then Avg, W-Avg and the F1 scores: one
    block per row when the terminal is narrower than the table); the results file and the HTML page
    when asked."""
    from divergent.bench.binary import percent
    from divergent.bench.cetbench.html import cetbench_page
    from divergent.bench.cetbench.run import CATEGORY_ORDER, summary_json
    from divergent.report.tables import fitted

    parameters = summary.run.parameters
    title = f"CETBench run {summary.run.short_id} ({summary.run.status}): judge {parameters.get('judge')}"
    if parameters.get("model"):
        title += f", {parameters['model']}, {parameters.get('prompt')}"
    table = Table(title=title)
    table.add_column("pairs")
    cells = [(c, f) for c in CATEGORY_ORDER for f in ("np", "sp")]
    for category, flag in cells:
        table.add_column(f"{category} {flag}", justify="right")
    for column in ("Avg", "W-Avg", "Mac-F1", "Mic-F1", "PosF1", "NegF1", "coverage"):
        table.add_column(column, justify="right")
    rows = [("original", summary.originals), ("perturbed", summary.perturbed)] if summary.originals else \
        [("perturbed", summary.perturbed)]
    for name, breakdown in rows:
        values = []
        for category, flag in cells:
            if name == "original":
                matrix = breakdown.cells.get((category, ""))
            else:
                matrix = breakdown.cells.get((category, flag))
            values.append(percent(matrix.accuracy) if matrix is not None else "-")
        overall = breakdown.overall
        table.add_row(name, *values, percent(overall.accuracy), percent(overall.balanced_accuracy), percent(overall.macro_f1),
                      percent(overall.micro_f1), percent(overall.f1_positive), percent(overall.f1_negative),
                      percent(breakdown.coverage))
    console.print(fitted(table))
    perturbed = summary.perturbed
    if perturbed.by_k:
        console.print("by number of perturbations: " + ", ".join(
            f"k={k}: {percent(m.accuracy)}% ({m.total})" for k, m in perturbed.by_k.items()))
    if perturbed.by_kind:
        console.print("by perturbation type: " + ", ".join(
            f"{kind}: {percent(m.accuracy)}% ({m.total})" for kind, m in perturbed.by_kind.items()))
    if perturbed.execution:
        console.print("execution verdicts: " + ", ".join(f"{v}: {n}" for v, n in sorted(perturbed.execution.items())))
    if perturbed.samples:
        console.print(f"unparseable answers: {perturbed.unparseable}/{perturbed.samples}")
        console.print("usage: " + usage_line(perturbed.usage.as_dict(), price_known))
    if summary.errors:
        console.print(f"[yellow]{len(summary.errors)} item(s) failed (see --json)[/yellow]")
    write_outputs(summary_json(summary), as_json, html,
                  lambda document: cetbench_page(document, price_known=price_known), quiet=quiet,
                  again=f"divergent bench cetbench show {summary.run.short_id}")
