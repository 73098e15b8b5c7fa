"""``divergent bench selfconsistency run|show|list``: semantic self-consistency over a benchmark's
recorded samples (cluster each task's samples, pick the largest class, score it on the task's tests)."""

from __future__ import annotations

import math
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
    single_run,
    work,
)
from divergent.cli.option_groups import OptionGroup, with_option_groups

selfconsistency_app = harness_group(
    "Semantic self-consistency on recorded LLM samples: cluster each task's samples by behaviour, pick the "
    "largest class, pass@1 of the pick against a random sample's.")
bench_app.add_typer(selfconsistency_app, name="selfconsistency")


@dataclass(frozen=True)
class SelfConsistencyOptions(OptionGroup):
    """The tasks, their recorded samples, and how each task's samples are clustered."""

    tasks: Annotated[str, typer.Option("--tasks", help="humaneval, mbpp, mbpp-full, or a tasks .jsonl file.")]
    samples: Annotated[
        Path, typer.Option("--samples", help="Recorded samples (.jsonl[.gz]) or a directory of files per task.")
    ]
    models: Annotated[
        str | None, typer.Option("--models", help="Comma-separated model@temperature (default: every one in --samples).")
    ] = None
    m: Annotated[int, typer.Option("-m", help="Samples per task (the first m by index).", min=2)] = 10
    budget: Annotated[float, typer.Option("--budget", help="Seconds of search per task's samples.", min=0.1)] = 5.0
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per call and per reference test.")] = 2.0
    engines: Annotated[
        str | None, typer.Option("--engines", help="Comma-separated engines (default: the portfolio without a model).")
    ] = None
    seed: Annotated[int, typer.Option("--seed", help="Seed of the search.")] = 0
    limit_tasks: Annotated[int | None, typer.Option("--limit-tasks", min=1, help="Only the first N tasks that have 2 or more samples (tasks without are not counted).")] = None

    def config(self, isolation: str | None) -> Any:
        """The run's :class:`~divergent.bench.selfconsistency.run.SelfConsistencyConfig`."""
        from divergent.bench.selfconsistency.run import SelfConsistencyConfig
        from divergent.bench.selfconsistency.solve import ClusterSettings
        from divergent.datasets import parse_model_specs

        chosen = tuple(name.strip() for name in self.engines.split(",") if name.strip()) if self.engines else None
        return SelfConsistencyConfig(
            tasks=self.tasks, samples=str(self.samples), models=parse_model_specs(self.models), m=self.m,
            limit_tasks=self.limit_tasks,
            settings=ClusterSettings(budget=self.budget, seed=self.seed, timeout=self.timeout, engines=chosen,
                                     isolation=isolation),
        )


@selfconsistency_app.command("run")
@with_option_groups
def run(options: SelfConsistencyOptions, output: Output, where: Where) -> None:
    """Cluster each task's samples, pick the largest class, score it on the task's tests (or resume the
    stored run with the same options)."""
    from divergent.bench.selfconsistency.run import SELFCONSISTENCY

    notes = output.notes()
    with input_errors(output.prints_json):
        output.check()
        config = options.config(where.isolation)
        ran = work(SELFCONSISTENCY, config, output, where, label="tasks (model × task)", kept="finished tasks are stored")
        record, progress = ran.worked.run, ran.worked.progress
        if progress.resumed:
            notes.print(f"[dim]{progress.resumed} task(s) from the stored run {record.short_id} (resumed)[/dim]")
        render_selfconsistency(output.console(), ran.summary, output)
    for message in progress.messages[:20]:
        notes.print(Text(f"  {message}", style="yellow"), soft_wrap=True)  # may quote an endpoint: never markup


def _show(console: Console, store: Any, references: Sequence[str], output: Output) -> None:
    from divergent.bench.selfconsistency.run import summarize

    record = single_run(store, references, "self-consistency")
    render_selfconsistency(console, summarize(store, record), output)


def _row(record: Any) -> tuple[str, ...]:
    p = record.parameters
    return (str(p.get("tasks")), ", ".join(p.get("models") or ["all"]), str(p.get("m")), f"{p.get('budget')} s")


add_stored_run_commands(selfconsistency_app, StoredRuns(
    title="self-consistency", kinds=("bench-selfconsistency",), columns=("tasks", "models", "m", "budget"), row=_row,
    show=_show,
))


def _percent(value: float | None) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.1f}"


def render_selfconsistency(console: Console, summary: Any, output: Output) -> None:
    """The table per model; the results file and the HTML page when asked."""
    from divergent.bench.selfconsistency.run import SELFCONSISTENCY
    from divergent.report.tables import fitted

    table = Table(title=f"self-consistency run {summary.run.short_id} ({summary.run.status}): pass@1 %")
    for column in ("model", "T", "tasks", "with tests", "pick", "random sample", "gain", "better/worse/same",
                   "tied", "one class", "mean classes", "thin picks", "failed"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for s in summary.models:
        gain = (s.pass_at_1 - s.baseline_pass_at_1) if s.pass_at_1 is not None and s.baseline_pass_at_1 is not None \
            else None
        table.add_row(
            s.model, f"{s.temperature:g}" if s.temperature is not None else "-", str(s.tasks), str(s.scored),
            _percent(s.pass_at_1), _percent(s.baseline_pass_at_1),
            "-" if gain is None else f"{100 * gain:+.1f}", f"{s.better}/{s.worse}/{s.same}", str(s.tied),
            str(s.one_class), "-" if s.mean_classes is None else f"{s.mean_classes:.2f}", str(s.thin), str(s.failed),
        )
    console.print(fitted(table, heading_columns=2))
    console.print("[dim]pick: the pass rate of the largest class's samples (of all tied classes' on a tie); random "
                  "sample: the pass rate of all samples; both averaged over the tasks with tests; thin picks: "
                  "tasks whose classes were judged on fewer inputs than the floor (--min-inputs' default), so "
                  "they may lump samples nobody told apart[/dim]")
    if summary.errors:
        console.print(f"[yellow]{len(summary.errors)} task(s) could not be clustered (see --json)[/yellow]")
    output.deliver(SELFCONSISTENCY, summary, "divergent bench selfconsistency")
