"""``divergent bench cetbench generate|run|show|list``: CETBench pairs made from tasks and recorded
samples (Algorithm 1), and judges scored on them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from divergent.cli.application import input_errors
from divergent.cli.bench import bench_app
from divergent.cli.harness import (
    GenerateOutput,
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

cetbench_app = harness_group("CETBench: equivalence under simple perturbations (generate pairs, judge them).")
bench_app.add_typer(cetbench_app, name="cetbench")


@dataclass(frozen=True)
class GenerateOptions(OptionGroup):
    """What CETBench's pairs are made from, and how (Algorithm 1)."""

    tasks: Annotated[str, typer.Option("--tasks", help="humaneval, mbpp, a tasks file, or a DIR with tasks.jsonl.")]
    out: Annotated[Path, typer.Option("--out", help="The pairs file to write (JSON lines).", metavar="FILE")]
    samples: Annotated[
        str | None, typer.Option("--samples", help="Recorded samples (default: the DiffTrust files for humaneval/mbpp).")
    ] = None
    count: Annotated[int, typer.Option("--count", min=1, help="Pairs to make.")] = 400
    seed: Annotated[int, typer.Option("--seed", help="Seed of the schedule and of every random choice.")] = 1
    k_max: Annotated[int, typer.Option("--k-max", min=1, max=20, help="Most perturbations per pair.")] = 5
    max_tries: Annotated[int, typer.Option("--max-tries", min=1, help="Tries per step.")] = 5
    check_executions: Annotated[
        int, typer.Option("--check-executions", min=10, help="divergent's budget per preserving step (executions).")
    ] = 2000
    per_task: Annotated[int, typer.Option("--per-task", min=1, help="Recorded samples per model and task.")] = 5
    limit_tasks: Annotated[int | None, typer.Option("--limit-tasks", min=2, help="Only the first N tasks.")] = None
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per test run.")] = 1.0
    pair_budget: Annotated[float, typer.Option(
        "--pair-budget", min=0.0, help="Seconds per pair; a pair past it is skipped (counted, stored). 0: no limit.")
    ] = 30.0
    force: Annotated[bool, typer.Option("--force", help="Start again (a new stored run, a new --out) instead of "
                                        "resuming.")] = False

    def config(self, isolation: str | None) -> Any:
        """The generation's :class:`~divergent.bench.cetbench.generation.GenerationConfig` (the tasks and
        their samples read: none is an input error)."""
        from divergent.bench.cetbench.generate import GeneratorSettings
        from divergent.bench.cetbench.generation import GenerationConfig, generation_parameters
        from divergent.bench.cetbench.pairs import load_material
        from divergent.errors import InvalidArgument

        settings = GeneratorSettings(count=self.count, seed=self.seed, k_max=self.k_max, max_tries=self.max_tries,
                                     check_executions=self.check_executions, timeout=self.timeout,
                                     isolation=isolation, pair_budget=self.pair_budget or None)
        task_set, by_task = load_material(self.tasks, self.samples, per_task=self.per_task,
                                          limit_tasks=self.limit_tasks)
        if not any(by_task.values()):  # pairs are made from samples: without any, nothing would be made
            where = f"in {self.samples}" if self.samples else "(give --samples FILE: recorded samples, JSON lines)"
            raise InvalidArgument(f"no recorded samples for the tasks of {self.tasks} {where}; CETBench pairs are "
                                  "made from them")
        parameters = generation_parameters(self.tasks, self.samples, self.per_task, self.limit_tasks, settings)
        return GenerationConfig(list(task_set), by_task, settings, parameters, self.out, fresh=self.force)


@cetbench_app.command("generate")
@with_option_groups
def generate(options: GenerateOptions, output: GenerateOutput, where: Where) -> None:
    """Make CETBench pairs (stored one by one: the same command resumes an interrupted run) and write
    them to --out."""
    from divergent.bench.cetbench.generation import CETBENCH_GENERATION
    from divergent.cli.outputs import check_output_paths

    out = options.out
    with input_errors(output.prints_json):
        output.check()
        check_output_paths(("--out", out))
        config = options.config(where.isolation)
        generation = work(CETBENCH_GENERATION, config, output, where, label="CETBench pairs",
                          kept=f"the pairs made so far are stored (and in {out})").worked
        if not output.prints_json:
            _render_generation(output.console(), generation, out, len(config.tasks),
                               sum(map(len, config.samples.values())))
        output.write(CETBENCH_GENERATION.document(generation))


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


@dataclass(frozen=True)
class CetOptions(OptionGroup):
    """CETBench's own options: the pairs, the judge and how it is asked."""

    pairs: Annotated[Path, typer.Option("--pairs", help="A pairs file from `cetbench generate` (JSON lines).",
                                        metavar="FILE")]
    judge: Annotated[str, typer.Option("--judge", help="llm, execution (no model) or hybrid.")] = "llm"
    prompt: Annotated[str, typer.Option("--prompt", help="basic or cot.")] = "basic"
    samples: Annotated[int, typer.Option("--samples", min=1, help="Answers per pair; majority vote.")] = 1
    temperature: Annotated[float | None, typer.Option(
        "--temperature", help="Default: 0 for one sample, 1 for several.")] = None
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, help="Token limit per answer.")] = None
    originals: Annotated[bool, typer.Option("--originals", help="Judge the unperturbed pairs too.")] = False
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N pairs.")] = None
    seed: Annotated[int, typer.Option("--seed", help="Seed of the search and of tie-breaking coins.")] = 0
    budget: Annotated[float, typer.Option("--budget", min=0.1, help="Execution: seconds per pair.")] = 5.0

    def config(self, isolation: str | None) -> Any:
        """The run's :class:`~divergent.bench.cetbench.run.CetConfig`."""
        from divergent.bench.cetbench.run import CetConfig, CetPrompt
        from divergent.bench.equibench.run import JudgeKind

        return CetConfig(pairs=str(self.pairs), judge=JudgeKind.parse(self.judge), prompt=CetPrompt.parse(self.prompt),
                         samples=self.samples, temperature=self.temperature, max_tokens=self.max_tokens,
                         seed=self.seed, limit=self.limit, originals=self.originals, budget=self.budget,
                         isolation=isolation)


@cetbench_app.command("run")
@with_option_groups
def run(options: CetOptions, output: Output, where: Where, model: ModelAccess) -> None:
    """Judge CETBench pairs (or resume the stored run with the same options) and print the paper's metrics."""
    from divergent.bench.cetbench.run import CETBENCH

    with input_errors(output.prints_json):
        output.check()
        config = options.config(where.isolation)
        models = judge_models(model, config.judge)
        ran = work(CETBENCH, config, output, where, label="CETBench", kept="judged pairs are stored", models=models)
        for note in ran.worked.notes:
            output.notes().print(f"[yellow]{note}[/yellow]")
        render_cetbench(output.console(), ran.summary, output, price_known=ran.price_known)


def _show(console: Console, store: Any, references: Sequence[str], output: Output) -> None:
    from divergent.bench.cetbench.generation import CETBENCH_GENERATION
    from divergent.cli.benchmarks import benchmark_of_run
    from divergent.errors import InvalidArgument

    record = single_run(store, references, "CETBench")
    benchmark = benchmark_of_run(record.kind)
    if benchmark is None or not benchmark.name.startswith("cetbench"):
        raise InvalidArgument(f"run {record.short_id} is a {record.kind} run, not a CETBench run")
    summary = benchmark.summarize(store, record)
    if benchmark is not CETBENCH_GENERATION:
        render_cetbench(console, summary, output)
        return
    if output.html is not None:
        raise InvalidArgument("--html: a generation run has no HTML report (judge its pairs with `run`)")
    console.print(f"generation run {record.short_id} ({record.status}) of {record.parameters.get('tasks')}, "
                  f"seed {record.parameters.get('seed')}:", soft_wrap=True)
    _render_generation(console, summary, Path("(the store)"), 0, 0)
    output.write(CETBENCH_GENERATION.document(summary))


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


def render_cetbench(console: Console, summary: Any, output: Output, *, price_known: bool = True) -> None:
    """The paper's Table 2 (accuracy per category and flag, then Avg, W-Avg and the F1 scores: one
    block per row when the terminal is narrower than the table); the results file and the HTML page
    when asked."""
    from divergent.bench.binary import percent
    from divergent.bench.cetbench.run import CATEGORY_ORDER, CETBENCH
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
    output.deliver(CETBENCH, summary, "divergent bench cetbench", price_known=price_known)
