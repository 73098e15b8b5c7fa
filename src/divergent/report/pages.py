"""The pages of ``check`` and ``cluster`` reports, built from their JSON documents.

A page is built from the ``--json`` document (:func:`divergent.report.json.report_json`, plus the
cluster fields for ``cluster``), not from live records: the same document is what the store keeps,
so ``divergent report RUN --html`` draws a stored run exactly as ``--html`` drew it live.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from divergent.report.blocks import (
    Banner,
    Block,
    Chart,
    Code,
    Facts,
    OutcomeCard,
    Page,
    Paragraph,
    Section,
    SideBySide,
    Steps,
    Table,
)
from divergent.report.charts import bar_chart, line_chart
from divergent.report.diff import Span, output_diff
from divergent.values import NotBuiltin, render

Document = Mapping[str, Any]

#: past this many "found a divergence" marks on the engines chart, none are drawn
MAX_MARKS = 25

_VERDICTS = {
    "divergent": ("Implementations differ", "bad"),
    "no-difference-found": ("No difference found", "good"),
    "too-few-inputs": ("Too few inputs to tell", "warn"),
    "equivalent-on-all-inputs": ("Equivalent on every valid input", "good"),
    "error": ("The run failed", "bad"),
}


def check_page(document: Document, *, test: str | None = None, title: str | None = None) -> Page:
    """The report of one ``check`` run: verdict, the counterexample side by side with the
    differences marked, the shrinking steps, behaviour classes, the engines over time, the run's
    settings, and the reproducing test (``test``: the text of ``--emit-test``)."""
    implementations = list(document.get("implementations") or [])
    sections: list[Section] = []
    cx = document.get("counterexample")
    if cx:
        sections.append(counterexample_section(cx))
        sections.append(shrinking_section(cx))
    if len(implementations) > 2 or len(document.get("splits") or ()) > 1:
        sections.append(classes_section(document))
    sections.append(engines_section(document))
    sections.append(run_section(document))
    if test:
        sections.append(Section("Reproduce", (Code(test, caption="a pytest module (--emit-test FILE writes it)",
                                                    language="python"),), id="reproduce"))
    return Page(
        kind="check",
        title=title or _title(document, implementations),
        subtitle=" · ".join(implementations),
        banner=check_banner(document),
        sections=tuple(sections),
    )


def cluster_page(document: Document, *, title: str | None = None) -> Page:
    """The report of one ``cluster`` run: the classes (a chart of their sizes), the inputs that split
    them, the pick, the engines over time and the run's settings."""
    implementations = list(document.get("implementations") or [])
    classes = [entry["members"] if isinstance(entry, Mapping) else list(entry) for entry in document.get("classes", [])]
    count = len(classes)
    pick = document.get("pick")
    detail = f"self-consistency pick: {pick} (its class has {len(classes[0])} of {len(implementations)})" if classes else ""
    if document.get("tied"):
        detail += f"; tied with {len(document.get('tied_classes') or []) - 1} other class(es) of the same size"
    banner = Banner(
        headline=f"{count} behaviour class{'es' if count != 1 else ''} among {len(implementations)} implementations",
        detail=detail, tone="warn" if count > 1 else "good",
    )
    sections = [classes_section(document), engines_section(document), run_section(document)]
    probes = document.get("probes")
    if probes:
        rows = [(number, " vs ".join(map(str, probe.get("pair", []))),
                 probe.get("reason", ""), probe.get("calls"), probe.get("inputs"), probe.get("clusters_after"))
                for number, probe in enumerate(probes, 1)]
        sections.insert(1, Section("ProbeGen probes", (Table.of(
            ["probe", "pair", "result", "calls", "inputs", "classes after"], rows),), id="probes"))
    return Page(
        kind="cluster",
        title=title or f"Behaviour classes of {len(implementations)} implementations",
        subtitle=" · ".join(implementations),
        banner=banner,
        sections=tuple(sections),
    )


def _title(document: Document, implementations: Sequence[str]) -> str:
    """The title the kind wrote into the document (``normalize: 2 implementations compared``,
    ``sum.py vs sum_wrong.cpp``); a document stored before titles were written gets a plain one."""
    return str(document.get("title") or f"{len(implementations)} implementations compared")


def check_banner(document: Document) -> Banner:
    verdict = str(document.get("verdict", ""))
    headline, tone = _VERDICTS.get(verdict, (verdict.replace("-", " ").capitalize() or "Unknown", "neutral"))
    implementations = document.get("implementations") or []
    size = (f"{document.get('inputs', 0):,} inputs, {document.get('executions', 0):,} executions "
            f"in {float(document.get('seconds') or 0):.1f} s")
    if verdict == "divergent":
        detail = f"found by {document.get('engine')} · {size}"
    elif verdict == "error":
        detail = str(document.get("error") or "")
    else:
        if verdict == "no-difference-found" and document.get("filtered_out"):
            headline = "No relevant difference found"
        detail = f"among {len(implementations)} implementations · {size} (stopped: {document.get('exit_reason')})"
        if verdict == "too-few-inputs" and document.get("reason"):
            detail = f"{document['reason']} · {detail}"  # why, as the terminal's headline says it
    return Banner(headline=headline, detail=detail, tone=tone)  # type: ignore[arg-type]


def _spans(reference: str, text: str, differs: bool) -> tuple[Span, ...]:
    if not differs:
        return (Span("equal", text),) if text else ()
    return output_diff(reference, text)


def _argument_note(cx: Mapping[str, Any], outcome: Mapping[str, Any]) -> str:
    after = outcome.get("args_after")
    if not isinstance(after, list) or len(after) < 2 or not isinstance(after[1], list) or not after[1]:
        return ""
    try:
        before_text = render(["list", list(cx.get("args") or [])])
        after_text = render(after[1][0])
    except (NotBuiltin, ValueError, TypeError, IndexError):
        return ""
    return "" if after_text == before_text else f"arguments after the call: {after_text}"


def outcome_cards(cx: Mapping[str, Any]) -> tuple[OutcomeCard, ...]:
    """Each implementation's outcome; what differs from the reference (the first implementation)
    is marked, in the value and in what it printed."""
    outcomes = list(cx.get("outcomes") or [])
    if not outcomes:
        return ()
    reference = outcomes[0]
    cards = []
    for position, outcome in enumerate(outcomes):
        differs = outcome.get("class") != reference.get("class") or outcome.get("kind") != reference.get("kind")
        notes = [duration_text(float(outcome.get("seconds") or 0.0))]
        for key, name in (("exit_code", "exit code"), ("signal", "signal")):
            if outcome.get(key) not in (None, ""):
                notes.append(f"{name}: {outcome[key]}")
        argument_note = _argument_note(cx, outcome)
        if argument_note:
            notes.append(argument_note)
        stdout = str(outcome.get("stdout") or "")
        reference_stdout = str(reference.get("stdout") or "")
        cards.append(OutcomeCard(
            label=str(outcome.get("impl", f"#{position + 1}")),
            class_number=int(outcome.get("class") or position + 1),
            kind=str(outcome.get("kind", "")),
            value=_spans(str(reference.get("value", "")), str(outcome.get("value", "")), differs and position > 0),
            stdout=_spans(reference_stdout, stdout, position > 0 and stdout != reference_stdout)
            if stdout or reference_stdout else (),
            notes=tuple(notes),
            reference=position == 0,
        ))
    return tuple(cards)


def duration_text(seconds: float) -> str:
    """``12 µs``, ``3.4 ms``, ``1.25 s``."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def counterexample_section(cx: Mapping[str, Any]) -> Section:
    blocks: list[Block] = [SideBySide(
        call=str(cx.get("call", "")),
        cards=outcome_cards(cx),
        caption="Marked against the first implementation (the reference): inserted text is what this one "
                "gives and the reference does not, struck text what the reference gives and this one does not.",
    )]
    verdict = cx.get("filter")
    if verdict:
        blocks.append(Paragraph(f"Filter verdict ({verdict.get('model')}): {verdict.get('differences')} — "
                                f"{verdict.get('rationale')}", tone="neutral"))
    return Section("Counterexample", tuple(blocks), id="counterexample-section")


def _visible_lines(text: str) -> str:
    """A program's input with each line's end shown (``⏎``), kept on its own line."""
    return "".join(line.replace("\n", "⏎\n") for line in text.splitlines(keepends=True)) or "(empty)"


def shrinking_section(cx: Mapping[str, Any]) -> Section:
    steps = list(cx.get("shrink_steps") or [])
    original = str(cx.get("original_call") or cx.get("call", ""))
    if steps and "stdin" in cx:  # whole programs: the inputs themselves, lines kept and their ends shown
        original = _visible_lines(str(cx.get("original_stdin", "")))
        steps = [_visible_lines(str(step)) for step in steps]
    if not steps:
        same = original == cx.get("call")
        text = ("Not shrunk: the input is shown as the engine found it." if same
                else f"Shrunk from {original}.")
        return Section("Shrinking", (Paragraph(text),), id="shrinking")
    return Section("Shrinking", (Steps(
        items=(original, *steps),
        caption=f"Found by {cx.get('engine')} as the first input below; each step is a simpler input on which "
                "the implementations still differ the same way, confirmed on fresh workers at the end.",
    ),), id="shrinking")


def _class_members(document: Document) -> list[list[str]]:
    return [entry["members"] if isinstance(entry, Mapping) else list(entry) for entry in document.get("classes", [])]


def classes_section(document: Document) -> Section:
    classes = _class_members(document)
    cx = document.get("counterexample") or {}
    described = {o.get("impl"): f"{o.get('kind')} {o.get('value')}" for o in cx.get("outcomes") or []}
    rows = []
    for number, members in enumerate(classes, 1):
        row: list[Any] = [number, len(members), ", ".join(members)]
        if cx:
            row.append(described.get(members[0], ""))
        rows.append(tuple(row))
    columns = ["class", "size", "members"] + (["on the counterexample"] if cx else [])
    blocks: list[Block] = [Table.of(columns, rows)]
    if len(classes) > 1 and len(document.get("implementations") or []) > 2:
        blocks.append(bar_chart("Implementations per behaviour class", [f"class {n}" for n in range(1, len(classes) + 1)],
                                {"implementations": [len(m) for m in classes]}, ylabel="implementations",
                                value_label="class"))
    splits = list(document.get("splits") or [])
    if splits:
        split_rows = []
        for split in splits:
            shown: dict[int, str] = {}
            for outcome in split.get("outcomes") or []:
                shown.setdefault(outcome.get("class") or 0, f"{outcome.get('impl')}: {outcome.get('kind')} {outcome.get('value')}")
            split_rows.append((split.get("call", ""), split.get("engine", ""), " | ".join(shown.values())))
        blocks.append(Table.of(["input that split them", "found by", "what each class did (first member)"], split_rows,
                               caption="each input refined the classes found before it"))
    if document.get("tests"):
        tests = document["tests"]
        blocks.append(Paragraph(f"pass@1 of the pick: {document.get('pass_at_1'):.3f}; of a random implementation: "
                                f"{document.get('baseline_pass_at_1'):.3f} ({tests.get('total')} reference tests)"))
    return Section("Behaviour classes", tuple(blocks), id="classes")


def engine_charts(document: Document) -> list[Chart]:
    """Cumulative inputs (with the divergent ones marked) and novel behaviours per engine over time."""
    timeline = list(document.get("timeline") or [])
    if not timeline:
        return []
    # the engines table's order (a stored document's mappings come back with sorted keys)
    listed = [str(e.get("name")) for e in document.get("engines") or []]
    names = list(dict.fromkeys([*listed, *(name for point in timeline for name in point.get("engines", {}))]))
    inputs: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    novel: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    restarted: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    last_divergences = dict.fromkeys(names, 0)
    last_restarts = dict.fromkeys(names, 0)
    for name in names:  # every engine starts from nothing
        inputs[name].append((0.0, 0))
        novel[name].append((0.0, 0))
    for point in timeline:
        seconds = float(point.get("seconds", 0.0))
        for name, counts in point.get("engines", {}).items():
            inputs[name].append((seconds, counts.get("inputs", 0)))
            novel[name].append((seconds, counts.get("novel", 0)))
            if counts.get("divergences", 0) > last_divergences[name]:
                found[name].append((seconds, counts.get("inputs", 0)))
                last_divergences[name] = counts["divergences"]
            if counts.get("restarts", 0) > last_restarts[name]:
                restarted[name].append((seconds, counts.get("novel", 0)))
                last_restarts[name] = counts["restarts"]
    caption = "✕ marks when an engine's inputs revealed new divergences"
    if sum(len(points) for points in found.values()) > MAX_MARKS:
        # clustering: nearly every input splits some class; marks would hide the lines
        found, caption = {}, "divergent inputs: see the engines table"
    return [
        line_chart("Inputs run per engine", inputs, xlabel="seconds", ylabel="inputs (cumulative)", marks=found,
                   mark_label="new divergent inputs", caption=caption),
        line_chart("New behaviours per engine", novel, xlabel="seconds", ylabel="novel behaviours (cumulative)",
                   marks=restarted if any(restarted.values()) else None, mark_label="restarted (fresh seed)",
                   caption="inputs whose outcomes showed a behaviour no earlier input had; a flat stretch is an "
                           "engine finding nothing new (✕: the scheduler restarted it with a fresh seed)"
                   if any(restarted.values()) else
                   "inputs whose outcomes showed a behaviour no earlier input had; a flat stretch is an engine "
                   "finding nothing new"),
    ]


def _first_word(stopped: str) -> str:
    """``exhausted`` of ``exhausted: all 6 seed inputs used (...)``."""
    return stopped.split(":", 1)[0].split(" —", 1)[0].strip()


def _stale(engine: dict[str, Any]) -> str:
    """An engine's longest run of inputs without a new behaviour, and its seconds."""
    if "longest_stale" not in engine:
        return ""  # a document from before the engines' diversity was kept
    return f"{engine['longest_stale']:,} ({engine.get('longest_stale_seconds', 0.0):.1f} s)"


def engines_section(document: Document) -> Section:
    """The engines' counts in one table of numbers (why an engine stopped by its first word, as the
    terminal shows it), and below it the whole reasons and what a background engine explored on its
    own: prose in a table's column would widen it past the page."""
    engines = document.get("engines") or []
    columns = ["engine", "inputs", "rejected", "executions", "novel", "distinct behaviours", "inputs since a new one",
               "longest run without one", "restarts", "divergent", "seconds", "stopped"]
    rows = [(e.get("name"), e.get("inputs"), e.get("rejected", ""), e.get("executions"), e.get("novel"),
             e.get("behaviours", ""),
             e.get("since_novel", ""), _stale(e), e.get("restarts", ""), e.get("divergences"),
             e.get("seconds"), _first_word(str(e.get("stopped") or ""))) for e in engines]
    blocks: list[Block] = [Table.of(columns, rows)]
    reasons = [(e.get("name"), what, text) for e in engines
               for what, text in (("explored on its own", e.get("explored")), ("stopped", e.get("stopped")))
               if text and (what == "explored on its own" or text != _first_word(str(text)))]
    if reasons:
        blocks.append(Table.of(["engine", "what", "in full"], reasons))
    blocks.extend(engine_charts(document))
    return Section("Engines", tuple(blocks), id="engines",
                   intro="Every engine proposes inputs; the scheduler gives more turns to those that reveal new behaviours.")


def run_section(document: Document) -> Section:
    facts = [
        ("implementations", ", ".join(document.get("implementations") or [])),
        ("seconds", f"{float(document.get('seconds') or 0):.2f}"),
        ("inputs", f"{document.get('inputs', 0):,}"),
        ("executions", f"{document.get('executions', 0):,}"),
        ("stopped", str(document.get("exit_reason", ""))),
        ("sandbox", str(document.get("isolation", ""))),
        ("equality policy", str(document.get("policy", ""))),
        ("seed", str(document.get("seed", ""))),
    ]
    llm = document.get("llm")
    if llm:
        facts.append(("language model", f"{llm.get('model')}: {llm.get('calls', 0)} calls, "
                                        f"${float(llm.get('cost', 0.0)):.4f}"))
    blocks: list[Block] = [Facts(tuple(facts))]
    blocks.extend(Paragraph(f"note: {note}", tone="warn") for note in document.get("notes") or [])
    filtered = document.get("filtered_out") or []
    if filtered:
        blocks.append(Table.of(["filtered out as irrelevant", "why"],
                               [(f.get("call"), (f.get("filter") or {}).get("rationale", "")) for f in filtered]))
    for call in document.get("nondeterministic") or []:
        blocks.append(Paragraph(f"not deterministic on {call} (reported, never claimed as a difference)", tone="warn"))
    return Section("Run", tuple(blocks), id="run")
