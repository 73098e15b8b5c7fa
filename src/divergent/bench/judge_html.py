"""What the HTML pages of the yes/no equivalence judges share (EquiBench and CETBench, ``--html``):
their stored items as report judgements, the bias table and the confusion matrix, the execution
judge's verdicts and witnesses, the model's usage, the misjudged items, the failed ones and the
run's settings. Each page is built from a results document alone (``--json``'s envelope,
:func:`divergent.bench.common.results_envelope`), so a stored run or a results file gives the same
page. The blocks are the HTML report's (:mod:`divergent.report`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from divergent.bench.binary import percent
from divergent.report.blocks import Block, Facts, Paragraph, Section, Table
from divergent.report.evaluation import ScoredAnswer, bias_table, confusion_matrix

__all__ = [
    "EQUIVALENT",
    "INEQUIVALENT",
    "NOT_EXECUTABLE",
    "bias_and_confusion",
    "errors_section",
    "execution_blocks",
    "how_read",
    "judge_name",
    "judgements_of",
    "misjudged_section",
    "model_section",
    "percent_text",
    "settings_section",
    "usage_row",
]

EQUIVALENT = "equivalent"
INEQUIVALENT = "inequivalent"
#: the execution judge's third answer (no prediction; it lowers the coverage)
NOT_EXECUTABLE = "not executable"
#: the execution judge's fourth: it ran, but on too few inputs to say "no difference" (no prediction)
TOO_FEW = "too few inputs"
#: rows shown in the long tables (misjudged items, witnesses); the rest are in --json
MAX_ROWS = 200

Item = Mapping[str, Any]


def label(value: bool) -> str:
    return EQUIVALENT if value else INEQUIVALENT


def percent_text(value: float | None) -> str:
    """``71.3%``, or ``–`` for an undefined rate."""
    return "–" if value is None else percent(value) + "%"


def predicted_label(item: Item) -> str | None:
    """What the judge said on an item: equivalent, inequivalent, not executable (the execution judge
    could not run it), or None (no answer)."""
    prediction = item.get("prediction")
    if prediction is not None:
        return label(bool(prediction))
    execution = item.get("execution") or {}
    verdict = execution.get("verdict")
    return NOT_EXECUTABLE if verdict == "not-executable" else TOO_FEW if verdict == "too-few-inputs" else None


def judgements_of(items: Sequence[Item], group: Callable[[Item], str], judge: str = "") -> list[ScoredAnswer]:
    """One judgement per item; ``group`` names its category."""
    return [ScoredAnswer(item=str(item.get("key") or item.get("pair_id")), category=group(item),
                      truth=label(bool(item["truth"])), predicted=predicted_label(item), judge=judge)
            for item in items]


def decided(judgements: Sequence[ScoredAnswer]) -> list[ScoredAnswer]:
    return [j for j in judgements if j.predicted in (EQUIVALENT, INEQUIVALENT)]


def judge_name(parameters: Mapping[str, Any]) -> str:
    """How the page names the judge: ``m (cot)``, ``execution``, ``hybrid: execution, then m (cot)``."""
    judge = str(parameters.get("judge", "llm"))
    model = f"{parameters.get('model')} ({parameters.get('prompt')}"
    model += f", {parameters['samples']} samples)" if int(parameters.get("samples") or 1) > 1 else ")"
    if judge == "execution":
        return "execution (divergent)"
    if judge == "hybrid":
        return f"hybrid: execution, then {model}"
    return model


def bias_and_confusion(judgements: Sequence[ScoredAnswer], *, rows: Callable[[ScoredAnswer], str], overall: str,
                       intro: str, column: str = "category") -> Section:
    """The bias table (a row per group and one for all, over the items that got a prediction: the
    accuracy on equivalent and on inequivalent items side by side) and the confusion matrix of every
    item (an item without a prediction has its own column)."""
    answered = decided(judgements)
    blocks: list[Block] = []
    if answered:
        regrouped = [ScoredAnswer(j.item, j.category, j.truth, j.predicted, judge=rows(j)) for j in answered]
        regrouped += [ScoredAnswer(j.item, j.category, j.truth, j.predicted, judge=overall) for j in answered]
        blocks.append(bias_table(regrouped, positive=EQUIVALENT, column=column,
                                 title="accuracy on equivalent and on inequivalent pairs (the items that got a "
                                 "prediction); bias: the share of answers saying equivalent minus the share of pairs that are"))
    else:
        blocks.append(Paragraph("No pair got a prediction.", tone="warn"))
    if judgements:
        blocks.append(confusion_matrix(judgements, labels=[EQUIVALENT, INEQUIVALENT], title="Confusion matrix"))
    return Section("Bias and confusion", tuple(blocks), id="bias", intro=intro)


def execution_blocks(items: Sequence[Item], group: Callable[[Item], str], column: str = "category") -> list[Block]:
    """The execution judge's verdicts per group, why pairs were not executable, and the witnesses
    found on pairs labelled equivalent (a definition mismatch or nondeterminism to look at)."""
    executed = [item for item in items if item.get("execution")]
    if not executed:
        return []
    groups = list(dict.fromkeys(group(item) for item in executed))
    rows = []
    for name in [*groups, "all"]:
        mine = [item for item in executed if name == "all" or group(item) == name]
        verdicts = Counter(item["execution"].get("verdict") for item in mine)
        false_witnesses = sum(1 for item in mine if item["execution"].get("verdict") == "inequivalent" and item["truth"])
        by_execution = sum(1 for item in mine if item.get("decided_by") == "execution")
        unanswered = verdicts.get("not-executable", 0) + verdicts.get("too-few-inputs", 0)
        rows.append((name, len(mine), verdicts.get("inequivalent", 0), verdicts.get("no-difference-found", 0),
                     verdicts.get("not-executable", 0), verdicts.get("too-few-inputs", 0), 1 - unanswered / len(mine),
                     false_witnesses, by_execution))
    blocks: list[Block] = [Table.of(
        [column, "pairs", "witness (NO)", "no difference found (YES)", "not executable", "too few inputs", "coverage",
         "witnesses on equivalent pairs", "decided by execution"], rows,
        caption="coverage: the share of pairs the execution judge answered (the others get no prediction from it: "
                "it could not run them, or ran them on too few inputs to say)")]
    reasons = Counter(_reason(item["execution"].get("reason", "")) for item in executed
                      if item["execution"].get("verdict") == "not-executable")
    if reasons:
        blocks.append(Table.of(["why not executable", "pairs"], reasons.most_common(20)))
    witnesses = [item for item in executed if item["execution"].get("verdict") == "inequivalent" and item["truth"]]
    if witnesses:
        blocks.append(Table.of(
            ["pair", column, "input", "what each program did"],
            [(str(item.get("key") or item.get("pair_id")), group(item), _short((item["execution"].get("witness") or {})
                                                                                .get("input", "")),
              " | ".join(_short(str(o), 60) for o in (item["execution"].get("witness") or {}).get("outputs", [])))
             for item in witnesses[:MAX_ROWS]],
            caption="witnesses on pairs labelled equivalent: the definition of the category is stronger or weaker "
                    "than the outputs compared, or a program is nondeterministic"))
    return blocks


def _reason(text: str) -> str:
    first = " ".join(str(text).split())
    return first if len(first) <= 120 else first[:119] + "…"


def _short(text: Any, limit: int = 80) -> str:
    shown = repr(text) if isinstance(text, str) else str(text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def usage_row(name: str, usage: Mapping[str, Any] | None, unparseable: int, samples: int) -> tuple[Any, ...]:
    """A row of the model's table: answers, unparseable answers and their rate, calls, tokens, dollars."""
    usage = usage or {}
    tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
    return (name, samples, unparseable, unparseable / samples if samples else None, int(usage.get("calls", 0)),
            int(usage.get("cached_calls", 0)), tokens, round(float(usage.get("cost", 0.0)), 4))


USAGE_COLUMNS = ["answers", "unparseable", "unparseable rate", "model calls", "from the cache", "tokens",
                 "cost $"]


def model_section(rows: Sequence[tuple[Any, ...]], price_known: bool, column: str = "category") -> Section:
    """The model's table (rows of :func:`usage_row`, one per category or set of pairs); a note when the
    model's price was not known (``show RUN`` cannot tell: it says nothing)."""
    blocks: list[Block] = [Table.of(
        [column, *USAGE_COLUMNS], rows,
        caption="unparseable: answers whose verdict neither the parser nor the extractor model could read "
                "(a seeded coin decided them); calls and tokens include the extractor's")]
    if not price_known:
        blocks.append(Paragraph("The model's price is not known (its dollars are 0): give it in the LLM "
                                "configuration ([llm.prices]) to see them.", tone="warn"))
    return Section("Model", tuple(blocks), id="model")


def misjudged_section(items: Sequence[Item], columns: Sequence[str],
                      row: Callable[[Item], tuple[Any, ...]]) -> Section:
    """The items the judge got wrong or could not judge (a prediction that differs from the label, or none)."""
    wrong = [item for item in items if item.get("prediction") is None or bool(item["prediction"]) != bool(item["truth"])]
    if not wrong:
        return Section("Misjudged pairs", (Paragraph("Every pair was judged right.", tone="good"),), id="misjudged")
    caption = f"the first {MAX_ROWS} of {len(wrong)} (every one is in --json)" if len(wrong) > MAX_ROWS else ""
    table = Table.of(list(columns), [row(item) for item in wrong[:MAX_ROWS]], caption=caption)
    return Section("Misjudged pairs", (table,), id="misjudged",
                   intro=f"{len(wrong)} of {len(items)} pairs: a wrong prediction, or none.")


def how_read(item: Item) -> str:
    """How the model's answers were read (exact, sentences, extractor, random), or what decided."""
    llm = item.get("llm") or {}
    votes = [vote.get("source", "") for vote in llm.get("votes", [])]
    if votes:
        counted = Counter(votes)
        text = ", ".join(f"{source} ×{n}" if n > 1 else source for source, n in counted.items())
        return text + (" (tie: coin)" if llm.get("tie") else "")
    execution = item.get("execution") or {}
    return _reason(execution.get("reason", "")) or str(item.get("decided_by", ""))


def errors_section(errors: Mapping[str, str]) -> Section | None:
    if not errors:
        return None
    return Section("Failed pairs", (Table.of(["pair", "error"], [(k, _reason(v)) for k, v in errors.items()]),),
                   id="errors", intro="Their work raised; they count in no metric. Running the same command again "
                   "retries them.")


def settings_section(document: Mapping[str, Any]) -> Section:
    parameters = document.get("parameters") or {}
    facts = [("run", f"{document.get('run', '')[:12]} ({document.get('status', '')})"),
             ("divergent", str(document.get("divergent_version", "")))]
    for name, value in parameters.items():
        if isinstance(value, Mapping):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, list | tuple):
            value = ", ".join(map(str, value))
        facts.append((name, "–" if value is None else str(value)))
    return Section("Settings", (Facts(tuple(facts)),), id="settings")
