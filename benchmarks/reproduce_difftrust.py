"""Reproduce the incoherence paper's Tables 2 and 4 and Figures 1 and 3 (HumanEval, and MBPP).

Runs ``divergent incoherence`` (the Python API, same store) at temperature 0.6, m = 10, n = 1,000 on
the recorded samples in ``shared/data/difftrust``, then prints our numbers beside the paper's
(aggregated from the artifact's own per-task logs, over the same tasks) with the differences, and
writes Figure 1 (model rankings: 1 - pass@1 vs non-zero incoherence) and Figure 3 (error vs
incoherence per task for GPT-4o, with the I <= 2E line) as PNG and SVG (needs matplotlib: ``pip
install 'divergent[plots]'``).

* ``--benchmark humaneval`` (default): the 16 models of the HumanEval logs.
* ``--benchmark mbpp``: every model with an MBPP log in the data directory: the three configurations
  whose MBPP samples and logs are shared (gpt_4o, claude_opus_4, ministral_8b), or all 16 with the
  data ``benchmarks/difftrust_artifact_samples.py`` writes from the authors' artifact;
  ``--limit-tasks 83`` gives the first 80 tasks that have logs.

Usage::

    python benchmarks/reproduce_difftrust.py [--benchmark humaneval|mbpp] [--compat difftrust|default]
        [--validity auto|gt-raises|gt-timeout] [--inputs draws|distinct] [--jobs 2] [--models a,b]
        [--limit-tasks N] [--n 1000] [--out benchmarks/results/difftrust]

The defaults mimic the artifact (``--compat difftrust``, whose ``--validity auto`` is the artifact's
gt-raises) so the numbers compare one to one; run again with ``--compat default`` to see how
divergent's own policy changes them. Resumable: a killed run continues where it stopped.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from divergent.bench.benchmark import Workbench
from divergent.datasets.jsonl import default_data_dir
from divergent.executors.base import ThreadExecutor
from divergent.incoherence.difftrust import aggregate_paper, paper_task_results
from divergent.incoherence.inputs import InputMode
from divergent.incoherence.metrics import aggregate, ranking_agreement
from divergent.incoherence.run import Validity
from divergent.incoherence.study import StudyConfig, run_study, summarize
from divergent.store import Store

# $DIVERGENT_BENCH_DATA, else shared/data/difftrust beside the checkout
DATA = default_data_dir() or Path(__file__).resolve().parents[2] / "shared/data/difftrust"
#: the configurations whose MBPP samples and per-task logs the artifact shares
MBPP_MODELS = ("claude_opus_4", "gpt_4o", "ministral_8b")
MODELS = (
    "claude_opus_4", "claude_sonnet_4", "deepseek_r1", "deepseek_v3_0324", "gemini_2_0_flash_lite",
    "gemini_2_5_flash", "gemini_2_5_pro", "gpt_3_5", "gpt_4", "gpt_4_turbo", "gpt_4o", "gpt_o4_mini",
    "llama_3_1_8b_instruct", "llama_3_3_70b_instruct", "llama_4_maverick_17b", "ministral_8b",
)  # fmt: skip
COLUMNS = (
    ("mean_error", "err"), ("mean_incoherence", "inc"), ("error_incoherence_spearman", "rho"),
    ("detection_rate", "det"), ("undetected_mean_error", "und"), ("nonzero_error_share", "1-p@1"),
)  # fmt: skip


#: per benchmark: its name in --tasks, the directory of its logs, the samples file, the default models
BENCHMARKS = {
    "humaneval": ("humaneval", "HumanEval", "candidates_HumanEval.jsonl.gz", MODELS),
    "mbpp": ("mbpp", "MBPP", "candidates_MBPP_dev.jsonl.gz", MBPP_MODELS),
}


def paper_tasks(model: str, temperature: float, m: int, benchmark: str = "humaneval") -> list | None:
    """The artifact's per-task results for one model (None when the log is not shipped)."""
    logs = DATA / BENCHMARKS[benchmark][1] / "experiments" / f"{model}_temp{temperature:g}" / "logs"
    log = logs / f"experiment-pointwise_{m}_candidate.json"
    return paper_task_results(log) if log.exists() else None


def logged_models(benchmark: str, temperature: float, m: int) -> tuple[str, ...]:
    """The models whose per-task logs for ``benchmark`` are in the data directory."""
    experiments = DATA / BENCHMARKS[benchmark][1] / "experiments"
    suffix = f"_temp{temperature:g}"
    if not experiments.is_dir():
        return ()
    return tuple(sorted(
        d.name[: -len(suffix)] for d in experiments.iterdir()
        if d.name.endswith(suffix) and (d / "logs" / f"experiment-pointwise_{m}_candidate.json").is_file()
    ))  # fmt: skip


def _task_number(task_id: str) -> int:
    tail = task_id.rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def stored_executions(units: list) -> tuple[int, int]:
    """Calls that ran (each distinct valid input: the ground truth once per task, every sample
    once) and the draws they stand for (repeats counted as often as drawn)."""
    executed: dict[str, int] = {}
    draws = 0
    for unit in units:
        result = unit.result
        if "labels" not in result:
            continue
        distinct = result.get("distinct_inputs") or len(result["labels"])
        task = unit.key.split("/", 1)[1]
        executed[task] = executed.get(task, distinct) + distinct * result.get("candidates", 0)
        draws += len(result["labels"]) * result.get("candidates", 0)
    return sum(executed.values()), draws


def fmt(value: float | None) -> str:
    return "    -" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:6.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="humaneval", choices=sorted(BENCHMARKS))
    parser.add_argument("--compat", default="difftrust", choices=["difftrust", "default"])
    parser.add_argument("--validity", default="auto", choices=[v.value for v in Validity])
    parser.add_argument("--inputs", default="draws", choices=[v.value for v in InputMode])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--models", default=None, help="default: every model with logs for the benchmark")
    parser.add_argument("--temperature", type=float, default=0.6)
    parser.add_argument("-m", type=int, default=10)
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--limit-tasks", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--task-budget", type=float, default=120.0,
                        help="wall seconds per task, all 16 models together (the artifact: 60 s per model and task)")
    parser.add_argument("--db", default=None)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "difftrust"))
    options = parser.parse_args()
    tasks_name, _, samples_file, default_models = BENCHMARKS[options.benchmark]
    if options.models:
        names = options.models.split(",")
    elif options.benchmark == "mbpp":
        names = logged_models("mbpp", options.temperature, options.m) or default_models
    else:
        names = default_models
    models = tuple((name, options.temperature) for name in names if name)
    config = StudyConfig(
        tasks=tasks_name, samples=str(DATA / samples_file), models=models, m=options.m,
        n=options.n, validity=Validity(options.validity), compat=options.compat, timeout=options.timeout,
        limit_tasks=options.limit_tasks, task_budget=options.task_budget, inputs=InputMode(options.inputs),
    )
    started = time.monotonic()
    with Store(options.db) as store:
        run = run_study(config, Workbench(store, ThreadExecutor(options.jobs))).run
        seconds = time.monotonic() - started
        summary = summarize(store, run)
        store_units = store.units(run.id)
        executions, draws = stored_executions(store_units)
    print(f"run {run.short_id}: {len(summary.models)} models, wall {seconds:.0f} s this invocation, "
          f"{executions:,} stored executions ({executions / max(seconds, 1e-9):,.0f}/s if all ran now), "
          f"{draws:,} evaluated draws (repeated draws run once)")
    print(f"{options.benchmark}: compat={options.compat} validity={config.effective_validity.value} "
          f"inputs={options.inputs} m={options.m} "
          f"n={options.n}; columns over the "
          "tasks both runs have, without those the artifact failed on (its 60 s limit)")
    over = sorted({u.key.split("/", 1)[1] for u in store_units if u.state != "done"}, key=_task_number)
    if over:
        print(f"tasks left out (over the task budget or failed): {', '.join(over)}")
    header = f"{'model':24}" + "".join(f" {short:>6}  {'paper':>6} {'diff':>6} " for _, short in COLUMNS)
    print(header)
    ours_by_model, paper_by_model = {}, {}
    for s in summary.models:
        logged = paper_tasks(s.model, options.temperature, options.m, options.benchmark)
        ours = s.metrics
        paper = None
        if logged is not None:
            # Like for like: the tasks both have, without the ones the artifact's run failed on
            # (its 60 s limit per task; those are the slow tasks where samples time out here).
            kept = {t.task_id for t in logged if not t.failed} & {t.task_id for t in s.tasks}
            paper = aggregate_paper([t for t in logged if t.task_id in kept])
            ours = aggregate([t for t in s.tasks if t.task_id in kept])
        ours_by_model[s.model] = ours
        if paper is not None:
            paper_by_model[s.model] = paper
        cells = []
        for field, _ in COLUMNS:
            ours_value = getattr(ours, field)
            paper_value = getattr(paper, field) if paper is not None else None
            diff = None if ours_value is None or paper_value is None else ours_value - paper_value
            cells.append(f" {fmt(ours_value)}  {fmt(paper_value)} {fmt(diff)} ")
        print(f"{s.model:24}" + "".join(cells) + f"  (all {len(s.tasks)} tasks: err {fmt(s.metrics.mean_error)})")
    if len(ours_by_model) > 1:
        ours_rank = ranking_agreement(ours_by_model).ranking_spearman
        paper_rank = ranking_agreement(paper_by_model).ranking_spearman if len(paper_by_model) > 1 else None
        print(f"ranking agreement (Figure 1 Spearman): ours {fmt(ours_rank)}  paper logs {fmt(paper_rank)}")
    write_figures(summary, paper_by_model, Path(options.out), options.benchmark)


def write_figures(summary: object, paper_by_model: dict, out: Path, benchmark: str = "humaneval") -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("figures skipped: pip install 'divergent[plots]' (matplotlib)")
        return
    out.mkdir(parents=True, exist_ok=True)
    title = BENCHMARKS[benchmark][1]
    # HumanEval keeps the file names it always had; other benchmarks add their name
    tail = "" if benchmark == "humaneval" else f"_{benchmark}"
    models = summary.models  # type: ignore[attr-defined]
    if len(models) > 1:
        agreement = ranking_agreement({s.model: s.metrics for s in models})
        figure, axis = plt.subplots(figsize=(6, 6))
        for name, x, y in zip(agreement.models, agreement.error_ranks, agreement.incoherence_ranks, strict=True):
            axis.scatter(x, y, color="tab:blue")
            axis.annotate(name, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
        axis.plot([1, len(models)], [1, len(models)], linestyle="--", color="grey")
        axis.set_xlabel("rank by 1 - pass@1 (share of tasks with non-zero error)")
        axis.set_ylabel("rank by share of tasks with non-zero incoherence")
        axis.set_title(f"Figure 1 ({title}): Spearman {agreement.ranking_spearman:.2f}")
        for suffix in ("png", "svg"):
            figure.savefig(out / f"figure1_rankings{tail}.{suffix}", dpi=150, bbox_inches="tight")
        plt.close(figure)
    chosen = next((s for s in models if s.model == "gpt_4o"), models[0] if models else None)
    if chosen is not None:
        figure, axis = plt.subplots(figsize=(6, 5))
        errors = [t.error for t in chosen.tasks]
        incoherences = [t.incoherence for t in chosen.tasks]
        axis.scatter(errors, incoherences, s=12, alpha=0.7)
        axis.plot([0, 0.5], [0, 1.0], linestyle="--", color="grey", label="I = 2E (Theorem 4.1)")
        axis.set_xlabel("empirical error")
        axis.set_ylabel("empirical incoherence")
        axis.set_title(f"Figure 3 ({title}, {chosen.model})")
        axis.legend()
        for suffix in ("png", "svg"):
            figure.savefig(out / f"figure3_error_vs_incoherence{tail}.{suffix}", dpi=150, bbox_inches="tight")
        plt.close(figure)
    print(f"figures written to {out}")


if __name__ == "__main__":
    main()
