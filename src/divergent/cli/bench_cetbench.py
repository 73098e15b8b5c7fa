"""``divergent bench cetbench generate|run|show|list``: CETBench pairs made from tasks and recorded
samples (Algorithm 1), and judges scored on them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from divergent.cli.app import input_errors
from divergent.cli.bench import bench_app
from divergent.cli.bench_equibench import (
    HtmlOpt,
    JsonOpt,
    StoreOpt,
    check_outputs,
    make_chat,
    open_store,
    print_runs,
    progress_bar,
    usage_line,
    write_results_files,
)
from divergent.cli.llm_options import ApiKeyEnvOpt, BaseUrlOpt, LLMConfigOpt, ModelOpt, ReplayOpt

cetbench_app = typer.Typer(help="CETBench: equivalence under simple perturbations (generate pairs, judge them).",
                           no_args_is_help=True)
bench_app.add_typer(cetbench_app, name="cetbench")


@cetbench_app.command("generate")
def generate(
    tasks: Annotated[str, typer.Option("--tasks", help="humaneval, mbpp, a tasks file, or a DIR with tasks.jsonl.")],
    out: Annotated[Path, typer.Option("--out", help="The pairs file to write (JSON lines).")],
    samples: Annotated[
        str | None, typer.Option("--samples", help="Recorded samples (default: the DiffTrust files for humaneval/mbpp).")
    ] = None,
    count: Annotated[int, typer.Option("--count", min=1, help="Pairs to make.")] = 400,
    seed: Annotated[int, typer.Option("--seed")] = 1,
    k_max: Annotated[int, typer.Option("--k-max", min=1, max=20, help="Most perturbations per pair.")] = 5,
    max_tries: Annotated[int, typer.Option("--max-tries", min=1, help="Tries per step.")] = 5,
    check_executions: Annotated[
        int, typer.Option("--check-executions", min=10, help="divergent's budget per preserving step (executions).")
    ] = 2000,
    per_task: Annotated[int, typer.Option("--per-task", min=1, help="Recorded samples per model and task.")] = 5,
    limit_tasks: Annotated[int | None, typer.Option("--limit-tasks", min=2, help="Only the first N tasks.")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per test run.")] = 1.0,
    isolation: Annotated[str | None, typer.Option("--isolation")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite --out instead of resuming it.")] = False,
    as_json: JsonOpt = None,
) -> None:
    """Make CETBench pairs (appending to --out: an interrupted run resumes where it stopped)."""
    from divergent.bench.cetbench.generate import GeneratorSettings, PairGenerator
    from divergent.bench.cetbench.pairs import done_indices, load_material

    console = Console()
    errors = Console(stderr=True)
    with input_errors(False):
        settings = GeneratorSettings(count=count, seed=seed, k_max=k_max, max_tries=max_tries,
                                     check_executions=check_executions, timeout=timeout, isolation=isolation)
        task_set, by_task = load_material(tasks, samples, per_task=per_task, limit_tasks=limit_tasks)
        if force and out.exists():
            out.unlink()
        done = done_indices(out, seed)
        generator = PairGenerator(task_set, by_task, settings)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("a", encoding="utf-8") as stream, progress_bar(errors, "CETBench pairs") as update:
            state: dict[str, Any] = {"done": len(done), "failed": 0}

            def on_pair(pair: Any, index: int, total: int) -> None:
                if pair is not None:
                    stream.write(json.dumps(pair.as_dict(seed), ensure_ascii=False) + "\n")
                    stream.flush()
                else:
                    state["failed"] += 1
                state["done"] += 1
                update(_Snapshot(total, state["done"], state["failed"]))

            try:
                stats = generator.run(done, on_pair)
            except KeyboardInterrupt:
                errors.print(f"[yellow]interrupted: the pairs so far are in {out}; run the same command to "
                             "resume[/yellow]")
                raise typer.Exit(130) from None
    _render_generation(console, stats.as_dict(), len(done), out, len(task_set), sum(map(len, by_task.values())))
    if as_json is not None:
        as_json.write_text(json.dumps({"settings": settings.as_dict(), "tasks": tasks, "stats": stats.as_dict()},
                                      indent=1))


class _Snapshot:
    def __init__(self, total: int, done: int, failed: int) -> None:
        self.total, self.done, self.failed = total, done, failed


def _render_generation(console: Console, stats: dict[str, Any], resumed: int, out: Path, tasks: int,
                       samples: int) -> None:
    console.print(f"{stats['pairs']} pair(s) written to {out} ({resumed} already there), {stats['dropped']} "
                  f"dropped; {tasks} tasks, {samples} recorded samples; {stats['seconds']:.1f} s "
                  f"({stats['pairs_per_minute'] or 0:.1f} pairs/min), {stats['test_runs']} versions tested, "
                  f"{stats['checks']} divergent checks")
    table = Table(title="perturbation steps")
    for column in ("type/flag", "tried", "accepted", "rejected"):
        table.add_column(column, justify="left" if column == "type/flag" else "right")
    for name, row in stats["steps"].items():
        rate = row["rejection_rate"]
        table.add_row(name, str(row["tried"]), str(row["accepted"]), "-" if rate is None else f"{100 * rate:.0f}%")
    console.print(table)
    for reason, count in {**stats["rejections"], **stats["originals_rejected"]}.items():
        console.print(f"  {count:5d}  {reason}")


@cetbench_app.command("run")
def run(
    pairs: Annotated[Path, typer.Option("--pairs", help="A pairs file from `cetbench generate` (JSON lines).")],
    judge: Annotated[str, typer.Option("--judge", help="llm, execution (no model) or hybrid.")] = "llm",
    prompt: Annotated[str, typer.Option("--prompt", help="basic or cot.")] = "basic",
    samples: Annotated[int, typer.Option("--samples", min=1, help="Answers per pair; majority vote.")] = 1,
    temperature: Annotated[float | None, typer.Option("--temperature")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1)] = None,
    originals: Annotated[bool, typer.Option("--originals", help="Judge the unperturbed pairs too.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1)] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1)] = 1,
    budget: Annotated[float, typer.Option("--budget", min=0.1, help="Execution: seconds per pair.")] = 5.0,
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
    """Judge CETBench pairs (or resume the stored run with the same options) and print the paper's metrics."""
    from divergent.bench.cetbench.run import CetConfig, CetPrompt, run_cetbench, summarize
    from divergent.bench.equibench.run import JudgeKind
    from divergent.errors import InvalidArgument

    console = Console()
    errors = Console(stderr=True)
    chat = None
    with input_errors(False), open_store(db) as store:
        check_outputs(as_json, html)
        judge_kind = JudgeKind.parse(judge)
        config = CetConfig(pairs=str(pairs), judge=judge_kind, prompt=CetPrompt.parse(prompt), samples=samples,
                           temperature=temperature, max_tokens=max_tokens, seed=seed, limit=limit,
                           originals=originals, budget=budget, isolation=isolation)
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
        try:
            with progress_bar(errors, "CETBench") as update:
                record, _progress, bad_lines = run_cetbench(config, store, chat=chat, jobs=jobs, on_progress=update)
        except KeyboardInterrupt:
            errors.print("[yellow]interrupted: judged pairs are stored; run the same command to resume[/yellow]")
            raise typer.Exit(130) from None
        finally:
            if chat is not None:
                chat.close()
        summary = summarize(store, record)
    if bad_lines:
        errors.print(f"[yellow]{bad_lines} line(s) of {pairs} could not be used[/yellow]")
    with input_errors(False):
        render_cetbench(console, summary, as_json, html, price_known=getattr(chat, "price_known", True))


@cetbench_app.command("show")
def show(
    run_id: Annotated[str, typer.Argument(help="Run id (or a unique prefix).")],
    as_json: JsonOpt = None,
    html: HtmlOpt = None,
    db: StoreOpt = None,
) -> None:
    """Print a stored CETBench run again (nothing runs)."""
    from divergent.bench.cetbench.run import summarize

    with input_errors(False), open_store(db) as store:
        check_outputs(as_json, html)
        summary = summarize(store, store.get_run(run_id))
        render_cetbench(Console(), summary, as_json, html)


@cetbench_app.command("list")
def list_runs(db: StoreOpt = None) -> None:
    """The stored CETBench runs."""
    from divergent.bench.cetbench.run import cetbench_runs

    with input_errors(False), open_store(db) as store:
        print_runs(
            f"CETBench runs in {store.path}",
            ("run", "status", "created", "items", "judge", "model", "prompt", "pairs"),
            ((r.short_id, r.status, r.created, str(r.unit_count), str(r.parameters.get("judge")),
              str(r.parameters.get("model") or "-"), str(r.parameters.get("prompt") or "-"),
              str(r.parameters.get("pairs"))) for r in cetbench_runs(store)),
        )



def render_cetbench(console: Console, summary: Any, as_json: Path | None, html: Path | None = None, *,
                    price_known: bool = True) -> None:
    """The paper's Table 2 layout: accuracy per category and flag, then Avg, W-Avg and the F1 scores;
    the results file and the HTML page when asked."""
    from divergent.bench.binary import percent
    from divergent.bench.cetbench.run import CATEGORY_ORDER, summary_json

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
    console.print(table, width=max(console.width, 150))
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
    if as_json is not None or html is not None:
        from divergent.bench.cetbench.html import cetbench_page

        write_results_files(console, summary_json(summary), as_json, html, cetbench_page, price_known=price_known)
