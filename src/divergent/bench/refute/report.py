"""REFUTE's results: computed from the stored attempts alone, written as JSON, printed as tables.

Per strategy: the success rate (the mean over problems of pass@1, and of pass@k for k = the
attempts), the problems solved (at least one successful attempt), every status's count,
validation failures, the model's tokens and dollars (as they were when each answer was made: a
cached rerun costs nothing now), and seconds per problem. The overlap: for each strategy the
problems it alone solves, and for each pair how many both solve. ``divergent bench refute show``
prints the tables from stored runs or from results files (one row per model, like the paper's
Tables 1-2). At 80 columns a table too wide for the terminal is printed one block per row.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from divergent import __version__
from divergent.bench.common import ENVELOPE_FORMAT, pass_at_k, stored_results
from divergent.bench.refute.evaluate import Status
from divergent.bench.refute.run import RefuteRun, unit_key
from divergent.bench.refute.strategies import STRATEGIES
from divergent.errors import InvalidArgument
from divergent.llm.chat import Usage
from divergent.report.tables import fitted
from divergent.store import RunRecord, Store

__all__ = ["render_tables", "results_document", "stored_document", "summarize_strategy"]

#: the columns of the paper's tables, in its order, then ours
TABLE_ORDER = ("zero-shot", "few-shot", "zero-shot-oracle", "agent", "randsearch", "randsearch-oracle",
               "divergent", "hybrid")


def _usage(data: Mapping[str, Any]) -> Usage:
    return Usage(**{key: data.get(key, 0) for key in ("calls", "cached_calls", "prompt_tokens",
                                                       "completion_tokens", "cost", "seconds", "retries")})


def summarize_strategy(name: str, units: Sequence[Mapping[str, Any]], problem_ids: Sequence[str],
                       attempts: int) -> dict[str, Any]:
    """One strategy's figures from its attempts (``units``: stored unit results)."""
    by_problem: dict[str, list[Mapping[str, Any]]] = {pid: [] for pid in problem_ids}
    for unit in units:
        if unit["problem_id"] in by_problem and unit["attempt"] < attempts:
            by_problem[unit["problem_id"]].append(unit)
    statuses: Counter[str] = Counter()
    usage = Usage()
    seconds = 0.0
    pass_1, pass_k = [], []
    solved, complete = [], 0
    for pid, found in by_problem.items():
        if not found:
            continue
        complete += 1
        successes = sum(1 for unit in found if unit["verdict"]["status"] == Status.SUCCESS)
        n = len(found)
        pass_1.append(pass_at_k(n, successes, 1))
        pass_k.append(pass_at_k(n, successes, min(attempts, n)))
        if successes:
            solved.append(pid)
        for unit in found:
            statuses[unit["verdict"]["status"]] += 1
            usage = usage + _usage(unit.get("usage", {}))
            seconds += float(unit.get("seconds", 0.0))
    rate = sum(pass_1) / len(pass_1) if pass_1 else math.nan
    strategy = STRATEGIES.get(name)
    return {
        "name": name,
        "needs_model": strategy.needs_model if strategy else None,
        "uses_correct": strategy.uses_correct if strategy else None,
        "problems": complete,
        "attempts": sum(statuses.values()),
        "success_rate": rate,
        # the standard error of the mean of per-problem pass@1 (binomial when one attempt each)
        "success_stderr": (math.sqrt(rate * (1 - rate) / len(pass_1)) if pass_1 else math.nan),
        "pass_at_k": {"k": attempts, "rate": sum(pass_k) / len(pass_k) if pass_k else math.nan},
        "solved": sorted(solved),
        "statuses": {status.value: statuses.get(status.value, 0) for status in Status},
        "validation_failures": statuses.get(Status.VALIDATION_FAILED.value, 0),
        "usage": usage.as_dict(),
        "seconds": round(seconds, 3),
        "seconds_per_problem": round(seconds / complete, 3) if complete else None,
    }


def overlap(solved: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """Which problems only one strategy solves, and how many each pair both solve."""
    sets = {name: set(problems) for name, problems in solved.items()}
    only = {name: sorted(mine - set().union(*(s for other, s in sets.items() if other != name)))
            for name, mine in sets.items()}
    return {
        "solved_by_any": len(set().union(*sets.values())) if sets else 0,
        "only": only,
        "pairwise": {a: {b: len(sets[a] & sets[b]) for b in sets} for a in sets},
    }


def results_document(store: Store, result: RefuteRun, *, model: str | None,
                     parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The ``--json`` document of a run, from the store: the harnesses' envelope (``benchmark``,
    ``format``, ``divergent_version``, ``parameters``, ``summary``, ``usage``, ``items``), with
    ``runs`` (one stored run per strategy) in place of one ``run``."""
    return _document(store, result.runs, [task.problem_id for task in result.tasks], result.attempts,
                     skipped=result.skipped, stopped=result.stopped, model=model, parameters=parameters)


def stored_document(store: Store, runs: Sequence[RunRecord]) -> dict[str, Any]:
    """The document of stored strategy runs (of one model), from the store alone: every problem and
    attempt they hold."""
    names = [str(run.parameters.get("strategy")) for run in runs]
    if len(set(names)) != len(names):
        raise InvalidArgument("show one run per strategy (runs of the same strategy were given)")
    models = {run.parameters.get("model") for run in runs} - {None}
    if len(models) > 1:
        raise InvalidArgument(f"these runs ask different models ({', '.join(sorted(map(str, models)))}): show them "
                              "one model at a time")
    problems: dict[str, None] = {}
    attempts = 1
    for run in runs:
        for key in store.done_keys(run.id):
            problem, _, attempt = key.rpartition("/")
            problems.setdefault(problem)
            if attempt.isdigit():
                attempts = max(attempts, int(attempt) + 1)
    shared = {key: value for key, value in runs[0].parameters.items() if key != "strategy"} if runs else {}
    return _document(store, {name: run for name, run in zip(names, runs, strict=True)}, sorted(problems), attempts,
                     skipped=[], stopped=None, model=next(iter(models), None), parameters=shared)


def _document(store: Store, runs: Mapping[str, RunRecord], problem_ids: Sequence[str], attempts_asked: int, *,
              skipped: Sequence[tuple[str, str]], stopped: str | None, model: str | None,
              parameters: Mapping[str, Any]) -> dict[str, Any]:
    wanted = {unit_key(pid, attempt) for pid in problem_ids for attempt in range(attempts_asked)}
    strategies, attempts, errors = [], [], []
    total = Usage()
    for name, run in runs.items():
        results, failures = stored_results(store, run)
        units = [unit for key, unit in results.items() if key in wanted]
        errors.extend({"strategy": name, "key": key, "error": message}
                      for key, message in failures.items() if key in wanted)
        entry = summarize_strategy(name, units, problem_ids, attempts_asked)
        strategies.append(entry)
        total = total + _usage(entry["usage"])
        attempts.extend(units)
    return {
        "benchmark": "refute",
        "format": ENVELOPE_FORMAT,
        "divergent_version": __version__,
        "run": None,
        "runs": {name: run.id for name, run in runs.items()},
        "status": "stopped" if stopped else "finished",
        "parameters": dict(parameters),
        "summary": {
            "model": model,
            "problems": list(problem_ids),
            "skipped": [{"problem_id": pid, "reason": why} for pid, why in skipped],
            "strategies": strategies,
            "overlap": overlap({entry["name"]: entry["solved"] for entry in strategies}),
            "errors": errors,
            "stopped": stopped,
        },
        "usage": total.as_dict(),
        "items": attempts,
    }


# -- tables ------------------------------------------------------------------------------------------


def _percent(value: Any) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.1f}"


def _rate(entry: Mapping[str, Any]) -> str:
    rate, error = entry.get("success_rate"), entry.get("success_stderr")
    if rate is None or (isinstance(rate, float) and math.isnan(rate)):
        return "—"
    shown = _percent(rate)
    return shown if error is None or (isinstance(error, float) and math.isnan(error)) else f"{shown}±{_percent(error)}"


def _ordered(names: set[str]) -> list[str]:
    return [n for n in TABLE_ORDER if n in names] + sorted(names - set(TABLE_ORDER))


def render_tables(documents: Sequence[Mapping[str, Any]], console: Console) -> None:
    """Tables like the paper's: success per model and strategy; each strategy's detail; overlap."""
    summaries = [document["summary"] for document in documents]
    names = _ordered({s["name"] for summary in summaries for s in summary["strategies"]})
    headline = Table(title="REFUTE: counterexamples found (% of problems, pass@1 ± standard error)")
    headline.add_column("model")
    headline.add_column("problems", justify="right")
    for name in names:
        marker = " *" if (STRATEGIES.get(name) and STRATEGIES[name].uses_correct) else ""
        headline.add_column(name + marker, justify="right")
    for summary in summaries:
        by_name = {s["name"]: s for s in summary["strategies"]}
        label = summary.get("model") or "(no model)"
        headline.add_row(label, str(len(summary.get("problems", []))),
                         *(_rate(by_name[n]) if n in by_name else "" for n in names))
    console.print(fitted(headline))
    console.print("[dim]* uses the correct code (shown to the model, or as the search's oracle)[/dim]")

    detail = Table(title="by strategy")
    for column in ("model", "strategy", "pass@k", "solved", "valid. failed", "unparseable", "printer failed",
                   "no difference", "wrong/correct failed", "tokens", "cost $", "s / problem"):
        detail.add_column(column, justify="left" if column in ("model", "strategy") else "right")
    for summary in summaries:
        for entry in sorted(summary["strategies"], key=lambda s: _ordered({s["name"], *names}).index(s["name"])):
            statuses = entry["statuses"]
            usage = entry["usage"]
            k = entry["pass_at_k"]
            detail.add_row(
                summary.get("model") or "—",
                entry["name"],
                f"{_percent(k['rate'])} (k={k['k']})",
                f"{len(entry['solved'])}/{entry['problems']}",
                str(statuses.get("validation-failed", 0)),
                str(statuses.get("unparseable-answer", 0)),
                str(statuses.get("printer-failed", 0)),
                str(statuses.get("no-difference", 0)),
                f"{statuses.get('wrong-failed', 0)}/{statuses.get('correct-failed', 0)}",
                f"{usage.get('prompt_tokens', 0) + usage.get('completion_tokens', 0):,}",
                f"{usage.get('cost', 0.0):.4f}",
                "—" if entry.get("seconds_per_problem") is None else f"{entry['seconds_per_problem']:.1f}",
            )
    console.print(fitted(detail, heading_columns=2))

    for summary in summaries:
        skipped = summary.get("skipped") or []
        if skipped:
            # errors may quote an endpoint: plain text, never markup
            console.print(Text(f"{len(skipped)} problem(s) skipped: "
                               + "; ".join(f"{s['problem_id']}: {s['reason']}" for s in skipped[:5]), style="yellow"))
        errors = summary.get("errors") or []
        if errors:
            console.print(Text(f"{len(errors)} attempt(s) ended in an error (stored; not counted): "
                               + "; ".join(f"{e['strategy']} {e['key']}: {e['error']}" for e in errors[:3]),
                               style="yellow"))
        if summary.get("stopped"):
            console.print(Text(f"stopped early: {summary['stopped']}", style="red"))
        shared = summary.get("overlap") or {}
        only = shared.get("only", {})
        if not only:
            continue
        table = Table(title=f"overlap ({summary.get('model') or 'no model'}): "
                            f"{shared.get('solved_by_any', 0)} problems solved by some strategy")
        table.add_column("strategy")
        table.add_column("solved", justify="right")
        table.add_column("only it", justify="right")
        strategy_names = _ordered(set(only))
        for other in strategy_names:
            table.add_column(f"∩ {other}", justify="right")
        by_name = {s["name"]: s for s in summary["strategies"]}
        for name in strategy_names:
            alone = only.get(name, [])
            shown = ", ".join(alone[:4]) + (" …" if len(alone) > 4 else "")
            table.add_row(name, str(len(by_name[name]["solved"])), f"{len(alone)}" + (f" ({shown})" if alone else ""),
                          *(str(shared["pairwise"][name][other]) for other in strategy_names))
        console.print(fitted(table))
