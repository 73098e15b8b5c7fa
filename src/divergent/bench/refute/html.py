"""REFUTE's results as a self-contained HTML page (``--html``), from the results documents alone:
the success of every strategy per model (bars), the statuses, the overlap of what the strategies
refuted, and the skipped rows. Built from the HTML report's blocks (``divergent.report``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from divergent.bench.refute.evaluate import Status
from divergent.bench.refute.report import TABLE_ORDER
from divergent.bench.refute.strategies import STRATEGIES

__all__ = ["refute_page", "write_refute_html"]


def _rate(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def refute_page(documents: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> Any:
    """The page (a :class:`divergent.report.blocks.Page`) of one or more results documents."""
    if isinstance(documents, Mapping):
        documents = [documents]
    from divergent.report.blocks import Banner, Section, Table
    from divergent.report.charts import bar_chart
    from divergent.report.evaluation import strategy_overlap
    from divergent.report.html import bench_page

    summaries = [document["summary"] for document in documents]
    present = {entry["name"] for summary in summaries for entry in summary["strategies"]}
    names = [n for n in TABLE_ORDER if n in present] + sorted(present - set(TABLE_ORDER))
    models = [summary.get("model") or "no model" for summary in summaries]
    series = {
        model: [_rate(next((e["success_rate"] for e in summary["strategies"] if e["name"] == name), None))
                for name in names]
        for model, summary in zip(models, summaries, strict=True)
    }
    labels = [name + (" *" if STRATEGIES.get(name) and STRATEGIES[name].uses_correct else "") for name in names]
    chart = bar_chart("Counterexamples found (pass@1)", labels, series, ylabel="share of problems", ylim=(0.0, 1.0),
                      caption="* uses the correct code (shown to the model, or as the search's oracle)",
                      value_label="strategy")
    status_rows = []
    for model, summary in zip(models, summaries, strict=True):
        for entry in summary["strategies"]:
            usage = entry.get("usage", {})
            status_rows.append((
                model, entry["name"], f"{len(entry['solved'])}/{entry['problems']}",
                *(entry["statuses"].get(status.value, 0) for status in Status),
                int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0)),
                round(float(usage.get("cost", 0.0)), 4), entry.get("seconds_per_problem"),
            ))
    statuses = Table.of(["model", "strategy", "solved", *(status.value for status in Status), "tokens", "cost $",
                         "s / problem"], status_rows)
    sections = [
        Section("Success", (chart,), id="success"),
        Section("Statuses", (statuses,), id="statuses",
                intro="Every attempt's status under the success rule (docs/bench.md)."),
    ]
    for model, summary in zip(models, summaries, strict=True):
        solved = {entry["name"]: entry["solved"] for entry in summary["strategies"]}
        if solved:
            sections.append(Section(f"Overlap ({model})", strategy_overlap(solved, total=len(summary["problems"])),
                                    id=f"overlap-{len(sections)}"))
    skipped = [(s["problem_id"], s["reason"]) for summary in summaries for s in summary.get("skipped", [])]
    if skipped:
        sections.append(Section("Skipped rows", (Table.of(["problem", "why"], skipped),), id="skipped"))
    entries = [(entry["success_rate"], len(entry["solved"]), entry["problems"], model, entry["name"])
               for model, summary in zip(models, summaries, strict=True) for entry in summary["strategies"]
               if _rate(entry["success_rate"]) is not None]
    best = max(entries, default=None)
    headline = (f"best: {best[4]} ({best[3]}) refutes {best[1]} of {best[2]} problems ({100 * best[0]:.1f}%)"
                if best else "no strategy ran")
    banner = Banner(headline, f"{len(names)} strategies, {len(summaries)} model(s)", "neutral")
    return bench_page("REFUTE", banner, sections)


def write_refute_html(documents: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """Write the page; InvalidArgument when it cannot be written."""
    from divergent.report.html import write_html

    return write_html(refute_page(documents), path)
