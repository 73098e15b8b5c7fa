"""``divergent incoherence run|show|list|pac``: estimate correctness without an oracle from an LLM's samples."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from divergent.cli.application import app, input_errors, make_console
from divergent.cli.harness import (
    Output,
    StoredRuns,
    Where,
    add_stored_run_commands,
    harness_group,
    single_run,
    work,
)
from divergent.cli.llm_options import ApiKeyEnvOpt, BaseUrlOpt, LLMConfigOpt, ModelAccess, ModelOpt, ReplayOpt
from divergent.cli.option_groups import OptionGroup, with_option_groups

incoherence_app = harness_group(
    "Incoherence of LLM samples (DiffTrust): error and incoherence per task, per model.",
    legacy_commands={"--epsilon": "pac", "--delta": "pac"},
)
app.add_typer(incoherence_app, name="incoherence")


@dataclass(frozen=True)
class StudyOptions(OptionGroup):
    """The tasks, their samples, and how they are measured (Gen(d), validity, comparison, limits)."""

    tasks: Annotated[str, typer.Option("--tasks", help="humaneval, mbpp, or a tasks .jsonl file.")]
    samples: Annotated[
        str | None, typer.Option("--samples", help="Recorded samples (.jsonl[.gz]) or a directory of files per task.")
    ] = None
    models: Annotated[str | None, typer.Option("--models", help="Comma-separated model@temperature.")] = None
    m: Annotated[int, typer.Option("-m", help="Samples per task.", min=2)] = 10
    n: Annotated[int, typer.Option("-n", help="Inputs per task.", min=1)] = 1000
    seed: Annotated[int, typer.Option("--seed", help="Seed of Gen(d) and of the metrics' tie-breaking.")] = 0
    inputs: Annotated[
        str,
        typer.Option("--inputs", help="draws (n draws of Gen(d), repeats kept and run once) or distinct "
                     "(n different inputs)."),
    ] = "draws"
    validity: Annotated[
        str,
        typer.Option("--validity", help="auto (gt-raises with --compat difftrust and on MBPP, else gt-timeout), "
                     "gt-timeout (drop inputs the ground truth times out on) or gt-raises (and those it raises on)."),
    ] = "auto"
    compat: Annotated[str, typer.Option("--compat", help="default or difftrust (the artifact's comparison).")] = "default"
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per call.")] = 2.0
    limit_tasks: Annotated[int | None, typer.Option("--limit-tasks", help="Only the first N tasks.")] = None
    task_budget: Annotated[
        float | None,
        typer.Option("--task-budget", min=1.0,
                     help="Wall seconds per task (all models); a task over it is left out, as the artifact did."),
    ] = None

    def config(self, isolation: str | None, live: Any) -> Any:
        """The study's :class:`~divergent.incoherence.study.StudyConfig` (``live``: the model's
        samples, or None for the recorded ones)."""
        from divergent.datasets import parse_model_specs
        from divergent.errors import InvalidArgument
        from divergent.incoherence.inputs import InputMode
        from divergent.incoherence.run import Validity
        from divergent.incoherence.study import StudyConfig

        try:
            validity = Validity(self.validity)
        except ValueError:
            raise InvalidArgument(f"--validity {self.validity!r}: choose auto, gt-timeout or gt-raises") from None
        try:
            inputs = InputMode(self.inputs)
        except ValueError:
            raise InvalidArgument(f"--inputs {self.inputs!r}: choose draws or distinct") from None
        return StudyConfig(
            tasks=self.tasks, samples=self.samples or "", models=parse_model_specs(live.label if live else self.models),
            m=self.m, n=self.n, seed=self.seed, validity=validity, compat=self.compat, timeout=self.timeout,
            limit_tasks=self.limit_tasks, task_budget=self.task_budget, inputs=inputs, isolation=isolation, live=live,
        )


@dataclass(frozen=True)
class LiveModel(OptionGroup):
    """The model to sample the programs from (in place of recorded samples), and its temperature: the
    model options (:class:`ModelAccess`) with ``--temperature`` after ``--model``."""

    panel = "Language model"

    model: ModelOpt = None
    temperature: Annotated[
        float | None,
        typer.Option("--temperature", help="Live sampling: the model's temperature (default 0.6, as in the paper).",
                     rich_help_panel="Language model"),
    ] = None
    base_url: BaseUrlOpt = None
    api_key_env: ApiKeyEnvOpt = None
    llm_config: LLMConfigOpt = None
    replay: ReplayOpt = False

    def client(self) -> Any:
        return self.access().client()

    def access(self) -> ModelAccess:
        """These options as the model options every command shares."""
        return ModelAccess(self.model, self.base_url, self.api_key_env, self.llm_config, self.replay)

    def source(self, samples: str | None, models: str | None) -> Any:
        """An LLMCandidates when the programs are to be sampled live, None for recorded samples."""
        from divergent.errors import InvalidArgument

        given = self.access().flags_given()
        if self.temperature is not None:
            given.insert(1 if self.model is not None else 0, "--temperature")
        if samples:
            if given:
                raise InvalidArgument(f"--samples reads recorded programs; {', '.join(given)} is for sampling them "
                                      "live: give one or the other")
            return None
        chat = self.client()
        if chat is None:
            if self.temperature is not None:
                raise InvalidArgument("--temperature is for live sampling: give --model too")
            return None
        if models:
            chat.close()
            raise InvalidArgument("--models picks among recorded samples; with live sampling the model is --model")
        from divergent.datasets.sampling import LLMCandidates

        try:
            return LLMCandidates(chat, 0.6 if self.temperature is None else self.temperature,
                                 parallel=chat.settings.concurrency)
        except InvalidArgument:
            chat.close()
            raise


@incoherence_app.command("run")
@with_option_groups
def run(options: StudyOptions, output: Output, where: Where, model: LiveModel) -> None:
    """Run (or resume) a study: the samples of --samples, or sampled live from --model (m per task,
    cached)."""
    from divergent.errors import InvalidArgument
    from divergent.incoherence.study import INCOHERENCE

    console = output.console()
    with input_errors(output.prints_json):
        output.check()
        live = model.source(options.samples, options.models)
        if not (options.samples or live):
            raise InvalidArgument("give --samples (recorded programs), or --model to sample them live")
        config = options.config(where.isolation, live)
        with _sampling(console, live):
            ran = work(INCOHERENCE, config, output, where, label="units (model × task)", kept="finished units are stored")
        _render(console, ran.summary, output)
    _report_skipped(output.notes(), ran.worked.progress)


@incoherence_app.command("pac")
def pac(
    epsilon: Annotated[float, typer.Option("--epsilon", help="The tolerance ε.")],
    delta: Annotated[float, typer.Option("--delta", help="The failure probability δ.")],
) -> None:
    """How many samples the PAC bounds need (Theorems 4.2 and 4.3); nothing runs."""
    with input_errors(False):
        _print_pac(make_console(), epsilon, delta)


def _report_skipped(console: Console, progress: Any) -> None:
    if progress.skipped_lines:
        console.print(f"[yellow]{progress.skipped_lines} malformed line(s) skipped[/yellow]")
    if progress.unknown_tasks:
        console.print(f"[yellow]{progress.unknown_tasks} sample(s) for unknown task ids skipped[/yellow]")
    for message in progress.messages[:20]:
        console.print(Text(f"  {message}", style="yellow"), soft_wrap=True)  # may quote an endpoint: never markup


def _show(console: Console, store: Any, references: Sequence[str], output: Output) -> None:
    from divergent.incoherence.study import summarize

    _render(console, summarize(store, single_run(store, references, "incoherence")), output)


def _row(record: Any) -> tuple[str, ...]:
    p = record.parameters
    return (str(p.get("tasks")), ", ".join(p.get("models") or ["all"]), str(p.get("m")), str(p.get("n")),
            str(p.get("compat")))


add_stored_run_commands(incoherence_app, StoredRuns(
    title="incoherence", kinds=("incoherence",), columns=("tasks", "models", "m", "n", "compat"), row=_row, show=_show,
))


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


def _render(console: Console, summary: Any, output: Output) -> None:
    from divergent.incoherence.study import INCOHERENCE
    from divergent.report.tables import fitted

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
    console.print(fitted(table, heading_columns=2))
    if summary.ranking is not None:
        console.print(f"ranking agreement across models (Figure 1), Spearman: {_fmt(summary.ranking.ranking_spearman)}")
    if summary.failed_units:
        console.print(f"[yellow]{summary.failed_units} unit(s) could not be measured (see the store)[/yellow]")
    output.deliver(INCOHERENCE, summary, "divergent incoherence")


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
                console.print(Text(f"  {note}", style="yellow"))
