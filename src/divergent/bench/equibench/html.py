"""EquiBench's results as a self-contained HTML page (``--html``), from the results document alone
(``--json``'s envelope, :func:`divergent.bench.equibench.run.summary_json`): accuracy per category
beside the paper's best model (bars and a table, with the coverage), the bias table (accuracy on
equivalent and on inequivalent pairs) and the confusion matrix, the execution judge's verdicts and
witnesses, the model's unparseable answers, tokens and dollars, the misjudged pairs and the
settings. Built from the HTML report's blocks (:mod:`divergent.report`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from divergent.bench.equibench.run import PAPER_BEST
from divergent.bench.judge_html import (
    bias_and_confusion,
    errors_section,
    execution_blocks,
    how_read,
    judge_name,
    judgements_of,
    misjudged_section,
    model_section,
    percent_text,
    settings_section,
    usage_row,
)
from divergent.report.blocks import Banner, Block, Page, Section, Table
from divergent.report.charts import bar_chart
from divergent.report.html import bench_page, write_html

__all__ = ["equibench_page", "write_equibench_html"]


def _paper_best(category: str) -> float | None:
    """The paper's figure as a share (a range, CUDA's, as its upper end)."""
    text = PAPER_BEST.get(category)
    return None if text is None else float(text.split("-")[-1]) / 100


def equibench_page(document: Mapping[str, Any], *, price_known: bool = True) -> Page:
    """The page (a :class:`divergent.report.blocks.Page`) of an EquiBench results document."""
    parameters = document.get("parameters") or {}
    summary = document["summary"]
    categories = list(summary.get("categories") or [])
    overall = summary["overall"]
    items = list(document.get("items") or [])
    judge = str(parameters.get("judge", "llm"))
    name = judge_name(parameters)
    executes = judge != "llm"

    rows = [*categories, overall]
    labels = [f"{row['category']} (n={row['pairs']})" for row in rows]
    series: dict[str, list[float | None]] = {"accuracy": [row.get("accuracy") for row in rows]}
    if judge == "execution":  # the hybrid judge asks the model where execution gives no prediction
        series["coverage"] = [row.get("coverage") for row in rows]
    series["paper's best model (0-shot)"] = [
        _paper_best(row["category"]) if row["category"] != "overall" else None for row in rows]
    chart = bar_chart("Accuracy per category", labels, series, ylabel="share of pairs", ylim=(0.0, 1.0),
                      value_label="category",
                      caption="accuracy over the pairs that got a prediction; the paper's best model per category "
                              "from its Table 2 (CUDA: 59.0-62.3, drawn at 62.3; its overall is 78.0)")
    table = Table.of(
        ["category", "pairs", "judged", "accuracy", "on equivalent", "on inequivalent", "W-Avg", "coverage",
         "paper's best %"],
        [(row["category"], row["pairs"], row["confusion"]["tp"] + row["confusion"]["fn"] + row["confusion"]["fp"]
          + row["confusion"]["tn"], row.get("accuracy"), row.get("accuracy_equivalent"),
          row.get("accuracy_inequivalent"), row.get("w_avg"), row.get("coverage"),
          PAPER_BEST.get(row["category"], "–")) for row in rows],
        caption="W-Avg: the mean of the accuracies on equivalent and on inequivalent pairs")
    sections = [Section("Accuracy", (chart, table), id="accuracy")]

    judgements = judgements_of(items, lambda item: str(item["category"]), judge=name)
    sections.append(bias_and_confusion(
        judgements, rows=lambda j: j.category, overall="all",
        intro="The paper's bias table: a judge that calls too many pairs equivalent is right on the equivalent "
              "ones and wrong on the others."))
    if executes:
        blocks: list[Block] = execution_blocks(items, lambda item: str(item["category"]))
        sections.append(Section("Execution judge", tuple(blocks), id="execution",
                                intro="divergent runs both programs: a witness says NO, no difference found within "
                                      "the budget YES; a pair it cannot run gets no prediction from it."))
    if any(row.get("samples") for row in rows):
        sections.append(model_section(
            [usage_row(row["category"], row.get("usage"), int(row.get("unparseable") or 0),
                       int(row.get("samples") or 0)) for row in rows if row.get("samples")],
            price_known))
    sections.append(misjudged_section(
        items, ["pair", "category", "truth", "predicted", "decided by", "how"],
        lambda item: (str(item.get("key") or item["pair_id"]), item["category"],
                      "equivalent" if item["truth"] else "inequivalent",
                      {True: "equivalent", False: "inequivalent"}.get(item.get("prediction"), "none"),
                      item.get("decided_by", ""), how_read(item))))
    failed = errors_section(summary.get("errors") or {})
    if failed is not None:
        sections.append(failed)
    sections.append(settings_section(document))
    return bench_page("EquiBench", _banner(name, overall, categories, summary, executes), sections,
                      subtitle=f"judge: {name}")


def _banner(name: str, overall: Mapping[str, Any], categories: list[Mapping[str, Any]], summary: Mapping[str, Any],
            executes: bool) -> Banner:
    judged = overall["confusion"]["tp"] + overall["confusion"]["fn"] + overall["confusion"]["fp"] \
        + overall["confusion"]["tn"]
    if judged == 0:
        headline = f"{name}: no pair got a prediction"
    elif executes and judged < overall["pairs"]:
        headline = (f"{name}: {percent_text(overall.get('accuracy'))} accurate on the {judged:,} pairs it judged "
                    f"(coverage {percent_text(overall.get('coverage'))})")
    else:
        headline = f"{name}: {percent_text(overall.get('accuracy'))} accurate on {judged:,} pairs"
    detail = (f"{overall['pairs']:,} pairs in {len(categories)} categor{'y' if len(categories) == 1 else 'ies'}"
              f" · mean of the categories' accuracies {percent_text(summary.get('mean_category_accuracy'))}"
              f" (the paper's best model: {PAPER_BEST['overall']}%)")
    return Banner(headline, detail, "neutral")


def write_equibench_html(document: Mapping[str, Any], path: Path, *, price_known: bool = True) -> Path:
    """Write the page; InvalidArgument when it cannot be written."""
    return write_html(equibench_page(document, price_known=price_known), path)
