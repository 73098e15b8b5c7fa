"""The pages of stored studies: an incoherence run (from its ``--json`` summary document) and a
ProbeGen tree run (from the store's units).

Both are built from plain documents (what the store and ``--json`` hold), so the report layer
needs nothing from the packages that compute them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from divergent.report.blocks import (
    Banner,
    Block,
    Code,
    Facts,
    OutcomeCard,
    Page,
    Paragraph,
    Section,
    SideBySide,
    Table,
)
from divergent.report.charts import bar_chart, scatter_chart
from divergent.report.diff import Span, output_diff

Document = Mapping[str, Any]


def _number(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _model_name(entry: Mapping[str, Any]) -> str:
    temperature = entry.get("temperature")
    return f"{entry.get('model')}@{temperature:g}" if temperature is not None else str(entry.get("model"))


def incoherence_page(document: Document, *, title: str | None = None, witnesses: int = 15) -> Page:
    """An incoherence study (the document of ``divergent incoherence --json``): the paper-style
    table per model (Table 2), incoherence against error per task with Theorem 4.1's bound, the
    detection rates, and the tasks whose samples disagree most."""
    models = list(document.get("models") or [])
    units = [(entry, task) for entry in models for task in entry.get("tasks") or []]
    with_truth = [(e, t) for e, t in units if _number(t.get("error")) is not None]
    incoherent = [(e, t) for e, t in units if (_number(t.get("incoherence")) or 0.0) > 0]
    erroneous = [(e, t) for e, t in with_truth if (_number(t.get("error")) or 0.0) > 0]
    detected = [(e, t) for e, t in erroneous if (_number(t.get("incoherence")) or 0.0) > 0]
    parameters = document.get("parameters") or {}
    if erroneous:
        headline = f"Incoherence exposed {len(detected)} of {len(erroneous)} erroneous task samples, without an oracle"
    else:
        headline = f"{len(incoherent)} of {len(units)} task samples are incoherent"
    detail = (f"{len(models)} model(s) · {len({t.get('task_id') for _, t in units})} tasks · "
              f"m = {parameters.get('m')} programs, n = {parameters.get('n')} inputs per task")
    banner = Banner(headline=headline, detail=detail, tone="warn" if incoherent else "good")

    rows = [
        (_model_name(entry).rsplit("@", 1)[0], entry.get("temperature"), len(entry.get("tasks") or []),
         _number(entry.get("mean_error")), _number(entry.get("mean_incoherence")), _number(entry.get("pass_at_1")),
         _number(entry.get("spearman")), _number(entry.get("detection_rate")),
         _number(entry.get("undetected_mean_error")))
        for entry in models
    ]
    table = Table.of(["model", "T", "tasks", "mean error", "mean incoherence", "pass@1", "Spearman ρ",
                      "detection rate", "undetected mean error"], rows,
                     caption="as in the paper's Table 2: error needs the ground truth; incoherence does not")
    sections = [Section("Per model", (table,), id="models")]

    charts: list[Block] = []
    if with_truth:
        series = {
            _model_name(entry): [(float(t["incoherence"]), float(t["error"]), str(t.get("task_id")))
                                 for t in entry.get("tasks") or [] if _number(t.get("error")) is not None]
            for entry in models
        }
        charts.append(scatter_chart(
            "Incoherence against error, per task", series, xlabel="incoherence", ylabel="error",
            lines=[("error = incoherence / 2 (Theorem 4.1: no point below)", 0.5)],
            caption="each point is one task's samples; a point on the x = 0 line is an error incoherence missed",
        ))
    names = [_model_name(entry) for entry in models]
    rates: dict[str, list[float | None]] = {
        "mean incoherence": [_number(e.get("mean_incoherence")) for e in models],
    }
    if with_truth:
        rates = {
            "detection rate": [_number(e.get("detection_rate")) for e in models],
            "mean error": [_number(e.get("mean_error")) for e in models],
            **rates,
        }
    charts.append(bar_chart("Detection rate per model" if with_truth else "Incoherence per model", names, rates,
                            ylabel="share", ylim=(0.0, 1.0), value_label="model",
                            caption="detection rate: the share of tasks with an error whose samples disagree"))
    sections.append(Section("Incoherence and error", tuple(charts), id="charts"))

    ranked = sorted(units, key=lambda unit: (-(_number(unit[1].get("incoherence")) or 0.0), str(unit[1].get("task_id"))))
    top = [(str(t.get("task_id")), _model_name(e), _number(t.get("incoherence")), _number(t.get("error")))
           for e, t in ranked[:witnesses] if (_number(t.get("incoherence")) or 0.0) > 0]
    if top:
        sections.append(Section("Most incoherent tasks", (Table.of(["task", "model", "incoherence", "error"], top),),
                                id="witnesses",
                                intro="Tasks whose sampled programs disagree most often: each disagreement proves "
                                      "at least one of them wrong."))
    facts = [(str(name), str(value)) for name, value in parameters.items()]
    facts.append(("failed units", str(document.get("failed_units", 0))))
    if document.get("ranking_spearman") is not None:
        facts.append(("ranking agreement (Figure 1), Spearman", f"{float(document['ranking_spearman']):.3f}"))
    sections.append(Section("Run", (Facts(tuple(facts)),), id="run"))
    return Page(kind="incoherence", title=title or f"Incoherence study {str(document.get('run', ''))[:12]}",
                subtitle=f"tasks: {parameters.get('tasks')} · samples: {parameters.get('samples')}",
                banner=banner, sections=tuple(sections))


def probegen_page(parameters: Mapping[str, Any], units: Mapping[str, Mapping[str, Any]], *,
                  run_id: str = "", status: str = "") -> Page:
    """A stored ProbeGen tree (a run of kind "probegen"): whether a generator found a difference,
    the first differentiating input side by side, the nodes per depth, and each node."""
    labels = [str(label) for label in parameters.get("implementations") or []]
    nodes = sorted((unit for key, unit in units.items() if key not in ("root", "result")),
                   key=lambda unit: [int(part) for part in str(unit.get("path", "0")).split(".") if part.isdigit()])
    successful = [node for node in nodes if node.get("differentiating")]
    if successful:
        banner = Banner("A generator found a difference", f"first at node {successful[0].get('path')} of {len(nodes)}",
                        tone="bad")
    else:
        banner = Banner("No generator found a difference", f"{len(nodes)} model call(s)", tone="good")
    sections: list[Section] = []
    probe = next((p for node in successful for p in node.get("probes") or [] if p.get("differentiating")), None)
    if probe is not None:
        outputs = [str(output) for output in probe.get("outputs") or []]
        class_of = {i: n for n, members in enumerate(probe.get("classes") or [], 1) for i in members}
        reference = outputs[0] if outputs else ""
        cards = tuple(
            OutcomeCard(
                label=labels[i] if i < len(labels) else f"#{i + 1}", class_number=class_of.get(i, i + 1),
                kind="output",
                value=output_diff(reference, text) if i and class_of.get(i) != class_of.get(0) else (Span("equal", text),),
                reference=i == 0,
            )
            for i, text in enumerate(outputs)
        )
        blocks: list[Block] = [SideBySide(call=str(probe.get("call", "")), cards=cards)]
        code = next((node.get("code") for node in successful if node.get("code")), None)
        if code:
            blocks.append(Code(str(code), caption="the generator the model wrote", language="python"))
        sections.append(Section("Counterexample", tuple(blocks), id="counterexample-section"))
    depths = sorted({int(node.get("depth", 0)) for node in nodes})
    if depths:
        counts = {
            "differentiating": [sum(1 for n in nodes if n.get("depth") == d and n.get("differentiating")) for d in depths],
            "no difference": [sum(1 for n in nodes if n.get("depth") == d and not n.get("differentiating")
                                  and not n.get("error")) for d in depths],
            "failed": [sum(1 for n in nodes if n.get("depth") == d and n.get("error")) for d in depths],
        }
        chart = bar_chart("Model calls per depth", [f"depth {d}" for d in depths], counts, ylabel="calls",
                          value_label="depth")
        rows = [(node.get("path"), node.get("depth"), bool(node.get("differentiating")), bool(node.get("success")),
                 len(node.get("probes") or []), _tokens(node), node.get("seconds"), node.get("error") or "")
                for node in nodes]
        sections.append(Section("Tree", (chart, Table.of(
            ["node", "depth", "differentiating", "accepted", "probes", "tokens", "seconds", "error"], rows)), id="tree"))
    facts = [(str(name), str(value)) for name, value in parameters.items()]
    result = units.get("result")
    if result:
        facts.append(("ended", str(result.get("reason"))))
        facts.append(("calls", str(result.get("calls"))))
    if status:
        facts.append(("status", status))
    sections.append(Section("Run", (Facts(tuple(facts)),), id="run"))
    if not nodes:
        sections.insert(0, Section("Tree", (Paragraph("The run stored no node."),), id="tree"))
    return Page(kind="probegen", title=f"ProbeGen tree {run_id[:12]}".strip(),
                subtitle=" · ".join(labels), banner=banner, sections=tuple(sections))


def _tokens(node: Mapping[str, Any]) -> int | None:
    usage = node.get("usage")
    if not usage:
        return None
    return int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))


def bench_page(title: str, banner: Banner, sections: Sequence[Section], *, subtitle: str = "",
               footnotes: Sequence[str] = ()) -> Page:
    """A benchmark's page (``divergent bench ...``): the harness chooses the banner and the sections,
    built from :mod:`divergent.report.evaluation`'s blocks (accuracy per category, bias table,
    confusion matrix, strategy overlap) and the generic ones in :mod:`divergent.report.blocks`."""
    return Page(kind="bench", title=title, banner=banner, sections=tuple(sections), subtitle=subtitle,
                footnotes=tuple(footnotes))
