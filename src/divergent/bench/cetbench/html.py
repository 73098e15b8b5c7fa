"""CETBench's results as a self-contained HTML page (``--html``), from the results document alone
(``--json``'s envelope, :func:`divergent.bench.cetbench.run.summary_json`): the paper's Table 2
(accuracy per category and flag, Avg, W-Avg and the F1 scores, before and after perturbation),
accuracy by number of perturbations and by perturbation type, the bias table and the confusion
matrix, the execution judge's verdicts, the model's unparseable answers, tokens and dollars, the
misjudged pairs and the settings. Built from the HTML report's blocks (:mod:`divergent.report`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

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

__all__ = ["cetbench_page", "write_cetbench_html"]

CATEGORIES = ("id", "fe", "ne", "di")
FLAGS = ("np", "sp")
#: the paper's names of the metrics, and their fields in a breakdown
METRICS = (("Avg", "accuracy"), ("W-Avg", "w_avg"), ("Mac-F1", "macro_f1"), ("Mic-F1", "micro_f1"),
           ("PosF1", "f1_positive"), ("NegF1", "f1_negative"), ("coverage", "coverage"))


def _cell(breakdown: Mapping[str, Any], category: str, flag: str) -> float | None:
    cells = breakdown.get("cells") or {}
    cell = cells.get(f"{category}/{flag}") or cells.get(category)  # originals carry no flag
    return None if cell is None else cell.get("accuracy")


def _item_group(item: Mapping[str, Any]) -> str:
    return f"{item['category']} {item.get('flag') or 'original'}"


def cetbench_page(document: Mapping[str, Any], *, price_known: bool = True) -> Page:
    """The page (a :class:`divergent.report.blocks.Page`) of a CETBench results document."""
    parameters = document.get("parameters") or {}
    summary = document["summary"]
    perturbed: Mapping[str, Any] = summary["perturbed"]
    originals: Mapping[str, Any] | None = summary.get("originals")
    items = list(document.get("items") or [])
    perturbed_items = [item for item in items if not item.get("original")]
    name = judge_name(parameters)
    sets = [("original", originals), ("perturbed", perturbed)] if originals else [("perturbed", perturbed)]

    columns = [f"{c} {f}" for c in CATEGORIES for f in FLAGS]
    table = Table.of(
        ["pairs", "n", *columns, *(title for title, _ in METRICS)],
        [(set_name, breakdown["pairs"], *(_cell(breakdown, c, f) for c in CATEGORIES for f in FLAGS),
          *(breakdown.get(field) for _, field in METRICS)) for set_name, breakdown in sets],
        caption="the paper's Table 2: accuracy per category (id, fe, ne, di) and flag (np: the perturbations "
                "broke equivalence, sp: they kept it); an original pair has no flag (its value is shown under "
                "both). Avg: accuracy; W-Avg: the mean of the accuracies on equivalent and inequivalent pairs")
    chart = bar_chart("Accuracy per category and flag", columns,
                      {set_name: [_cell(breakdown, c, f) for c in CATEGORIES for f in FLAGS]
                       for set_name, breakdown in sets},
                      ylabel="accuracy", ylim=(0.0, 1.0), value_label="category and flag")
    sections = [Section("Categories", (chart, table), id="categories")]

    perturbation_blocks: list[Block] = []
    for title, field, heading in (("Accuracy by number of perturbations", "by_k", "k"),
                                  ("Accuracy by perturbation type", "by_type", "type")):
        groups: Mapping[str, Mapping[str, Any]] = perturbed.get(field) or {}
        if groups:
            labels = [f"k = {key}" if field == "by_k" else key for key in groups]
            perturbation_blocks.append(bar_chart(
                title, labels, {"Avg": [row.get("accuracy") for row in groups.values()],
                                "W-Avg": [row.get("w_avg") for row in groups.values()]},
                ylabel="accuracy", ylim=(0.0, 1.0), value_label=heading))
            perturbation_blocks.append(Table.of(
                [heading, "pairs", "Avg", "W-Avg"],
                [(key, row["pairs"], row.get("accuracy"), row.get("w_avg")) for key, row in groups.items()]))
    if perturbation_blocks:
        sections.append(Section("Perturbations", tuple(perturbation_blocks), id="perturbations",
                                intro="A pair counts under every type its steps used."))

    ordered = sorted(perturbed_items, key=lambda item: (CATEGORIES.index(item["category"])
                                                         if item["category"] in CATEGORIES else len(CATEGORIES)))
    judgements = judgements_of(ordered, lambda item: str(item["category"]), judge=name)
    sections.append(bias_and_confusion(
        judgements, rows=lambda j: j.category, overall="all perturbed",
        intro="On the perturbed pairs: a judge that calls too many pairs equivalent is right on the equivalent "
              "ones and wrong on the others."))
    if parameters.get("judge", "llm") != "llm":
        sections.append(Section("Execution judge", tuple(execution_blocks(items, _item_group, column="category and flag")),
                                id="execution",
                                intro="divergent.check on the two functions, seeded with the task's tests: a witness "
                                      "says NO, none found within the budget YES."))
    usage_rows = [usage_row(set_name, breakdown.get("usage"), int(breakdown.get("unparseable") or 0),
                            int(breakdown.get("samples") or 0))
                  for set_name, breakdown in sets if breakdown.get("samples")]
    if usage_rows:
        sections.append(model_section(usage_rows, price_known, column="pairs"))
    sections.append(misjudged_section(
        items, ["pair", "category", "flag", "k", "perturbations", "truth", "predicted", "how"],
        lambda item: (("original/" if item.get("original") else "") + str(item["pair_id"]), item["category"],
                      item.get("flag") or "original", item.get("k", 0), ", ".join(item.get("kinds") or []),
                      "equivalent" if item["truth"] else "inequivalent",
                      {True: "equivalent", False: "inequivalent"}.get(item.get("prediction"), "none"),
                      how_read(item))))
    failed = errors_section(summary.get("errors") or {})
    if failed is not None:
        sections.append(failed)
    sections.append(settings_section(document))
    return bench_page("CETBench", _banner(name, perturbed, originals), sections, subtitle=f"judge: {name}")


def _banner(name: str, perturbed: Mapping[str, Any], originals: Mapping[str, Any] | None) -> Banner:
    headline = (f"{name}: Avg {percent_text(perturbed.get('accuracy'))}, W-Avg {percent_text(perturbed.get('w_avg'))} "
                f"on {perturbed['pairs']:,} perturbed pairs")
    detail = f"macro F1 {percent_text(perturbed.get('macro_f1'))} · coverage {percent_text(perturbed.get('coverage'))}"
    if originals:
        detail += (f" · before perturbation: Avg {percent_text(originals.get('accuracy'))}, W-Avg "
                   f"{percent_text(originals.get('w_avg'))} on {originals['pairs']:,} original pairs")
    return Banner(headline, detail, "neutral")


def write_cetbench_html(document: Mapping[str, Any], path: Path, *, price_known: bool = True) -> Path:
    """Write the page; InvalidArgument when it cannot be written."""
    return write_html(cetbench_page(document, price_known=price_known), path)
