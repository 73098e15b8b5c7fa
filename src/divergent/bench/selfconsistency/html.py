"""The self-consistency harness's results as a self-contained HTML page (``--html``), from the results
document alone (:func:`divergent.bench.selfconsistency.run.summary_json`): pass@1 of the pick
against a random sample per model (bars and a table), the tasks where the pick did better or worse,
the failed tasks and the settings. Built from the HTML report's blocks (:mod:`divergent.report`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from divergent.report.blocks import Banner, Block, Facts, Page, Section, Table
from divergent.report.charts import bar_chart
from divergent.report.html import bench_page

__all__ = ["selfconsistency_page"]


def _spec(entry: Mapping[str, Any]) -> str:
    temperature = entry.get("temperature")
    return str(entry["model"]) if temperature is None else f"{entry['model']}@{temperature:g}"


def _share(value: Any) -> float | None:
    return None if value is None else round(float(value), 4)


def _splits(item: Mapping[str, Any], most: int = 3, width: int = 160) -> str:
    """The first inputs that split the task's samples, each cut to fit a table cell."""
    calls = [note.removeprefix("split by ") for note in item.get("notes") or [] if note.startswith("split by ")]
    return "; ".join(call if len(call) <= width else call[: width - 1] + "…" for call in calls[:most])


def selfconsistency_page(document: Mapping[str, Any]) -> Page:
    """The page (a :class:`divergent.report.blocks.Page`) of a self-consistency results document."""
    parameters = document.get("parameters") or {}
    models = list(document["summary"].get("models") or [])
    items = list(document.get("items") or [])
    labels = [_spec(entry) for entry in models]
    chart = bar_chart("pass@1 per model", labels,
                      {"self-consistency pick": [entry.get("pass_at_1") for entry in models],
                       "random sample": [entry.get("baseline_pass_at_1") for entry in models]},
                      ylabel="pass@1", ylim=(0.0, 1.0), value_label="model",
                      caption="over the tasks with tests; the pick's pass@1 is its class's pass rate (tied classes "
                              "averaged)")
    table = Table.of(
        ["model", "tasks", "with tests", "pick", "random sample", "gain", "better", "worse", "same", "tied",
         "one class", "mean classes", "thin picks", "failed"],
        [(_spec(e), e["tasks"], e["scored"], _share(e.get("pass_at_1")), _share(e.get("baseline_pass_at_1")),
          _share(e.get("gain")), e["better"], e["worse"], e["same"], e["tied"], e["one_class"],
          _share(e.get("mean_classes")), e.get("thin", 0), e["failed"]) for e in models])
    sections = [Section("pass@1", (chart, table), id="pass-at-1")]

    moved = [item for item in items if item.get("pass_at_1") is not None and item.get("baseline_pass_at_1") is not None
             and abs(item["pass_at_1"] - item["baseline_pass_at_1"]) > 1e-12]
    if moved:
        name = (lambda item: item["task_id"]) if len(models) == 1 else (lambda item: item["key"])
        rows = [(name(item) + (" (thin pick)" if item.get("thin") else ""), item["samples"],
                 " ".join(str(len(group)) for group in item["classes"]),
                 _share(item["pass_at_1"]), _share(item["baseline_pass_at_1"]),
                 _splits(item))
                for item in sorted(moved, key=lambda item: item["pass_at_1"] - item["baseline_pass_at_1"])]
        blocks: tuple[Block, ...] = (Table.of(["task", "samples", "class sizes", "pick", "random sample",
                                               "inputs that split"], rows),)
        sections.append(Section("Where the pick differs from a random sample", blocks, id="moved",
                                intro="Tasks whose largest class passes more (or fewer) tests than the samples "
                                      "on average, worst first."))
    failed = [item for item in items if "error" in item]
    if failed:
        sections.append(Section("Failed tasks", (Table.of(["task", "error"], [(item["key"], item["error"])
                                                                              for item in failed]),), id="failed"))
    sections.append(Section("Settings", (Facts(tuple((str(key), str(value)) for key, value in parameters.items())),),
                            id="settings"))
    best = max(models, key=lambda e: (e.get("gain") is not None, e.get("gain") or 0.0), default=None)
    if best is not None and best.get("pass_at_1") is not None:
        headline = (f"{_spec(best)}: pass@1 {100 * best['pass_at_1']:.1f}% with the pick, "
                    f"{100 * best['baseline_pass_at_1']:.1f}% for a random sample")
    else:
        headline = "no task with tests was scored"
    return bench_page("Semantic self-consistency", Banner(headline, detail=f"{len(items)} task(s) of "
                                                          f"{parameters.get('tasks')}, m = {parameters.get('m')}"),
                      sections, subtitle=f"run {document.get('run', '')[:8]} ({document.get('status')})")
