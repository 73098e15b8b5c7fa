"""Blocks every benchmark report shares: accuracy per category, a bias table, a confusion matrix,
and the overlap of what several strategies solved.

A benchmark harness (``divergent bench ...``) turns its results into :class:`ScoredAnswer` records
(one per item and judge: the true label and the predicted one) and/or sets of solved items per
strategy, calls these functions for blocks, and hands the blocks to
:func:`divergent.report.html.bench_page` (see docs/reports.md)::

    judgements = [ScoredAnswer(item="p1", category="dce", truth="equivalent", predicted="inequivalent",
                            judge="gpt-4o-mini"), ...]
    page = bench_page("EquiBench", banner, [
        Section("Accuracy", (accuracy_by_category(judgements),)),
        Section("Bias", (bias_table(judgements, positive="equivalent"),)),
        Section("Errors", tuple(confusion_matrix(judgements, judge=j) for j in judges_of(judgements))),
    ])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from divergent.errors import InvalidArgument
from divergent.report.blocks import Block, Chart, Table
from divergent.report.charts import bar_chart, heatmap_chart

#: how a missing prediction (the judge gave no readable answer) is shown
NO_ANSWER = "no answer"


@dataclass(frozen=True)
class ScoredAnswer:
    """One judge's answer on one benchmark item."""

    item: str
    category: str
    truth: str
    #: None when the judge gave no usable answer (it counts as wrong)
    predicted: str | None
    judge: str = ""

    @property
    def correct(self) -> bool:
        return self.predicted is not None and self.predicted == self.truth


def judges_of(judgements: Iterable[ScoredAnswer]) -> list[str]:
    """The judges in order of first appearance."""
    return list(dict.fromkeys(j.judge for j in judgements))


def _categories(judgements: Sequence[ScoredAnswer]) -> list[str]:
    return list(dict.fromkeys(j.category for j in judgements))


def accuracy(judgements: Iterable[ScoredAnswer]) -> float | None:
    """The share of correct answers (None for no judgement)."""
    items = list(judgements)
    return sum(j.correct for j in items) / len(items) if items else None


def accuracy_by_category(
    judgements: Sequence[ScoredAnswer], *, title: str = "Accuracy per category", overall: bool = True
) -> Chart:
    """Bars of accuracy per category (and overall), one bar per judge."""
    if not judgements:
        raise InvalidArgument("accuracy_by_category needs at least one judgement")
    categories = _categories(judgements)
    judges = judges_of(judgements)
    series: dict[str, list[float | None]] = {}
    for judge in judges:
        mine = [j for j in judgements if j.judge == judge]
        values = [accuracy(j for j in mine if j.category == category) for category in categories]
        if overall:
            values.append(accuracy(mine))
        series[judge or "accuracy"] = values
    counts = Counter(j.category for j in judgements if j.judge == judges[0])
    labels = [f"{category} (n={counts[category]})" for category in categories]
    if overall:
        labels.append(f"all (n={sum(counts.values())})")
    return bar_chart(title, labels, series, ylabel="accuracy", ylim=(0.0, 1.0), value_label="category")


def confusion_matrix(
    judgements: Sequence[ScoredAnswer], *, judge: str | None = None, labels: Sequence[str] | None = None,
    title: str = "",
) -> Chart:
    """Counts of (true label, predicted label) for one judge (the first when ``judge`` is None);
    a missing prediction is its own column."""
    judges = judges_of(judgements)
    if not judges:
        raise InvalidArgument("confusion_matrix needs at least one judgement")
    chosen = judges[0] if judge is None else judge
    mine = [j for j in judgements if j.judge == chosen]
    if not mine:
        raise InvalidArgument(f"confusion_matrix: no judgement by {chosen!r}; judges: {', '.join(judges)}")
    truths = list(labels) if labels is not None else sorted({j.truth for j in mine})
    predicted = list(truths)
    for j in mine:
        if j.predicted is not None and j.predicted not in predicted:
            predicted.append(j.predicted)
    if any(j.predicted is None for j in mine):
        predicted.append(NO_ANSWER)
    counts = Counter((j.truth, j.predicted if j.predicted is not None else NO_ANSWER) for j in mine)
    matrix = [[counts[(truth, answer)] for answer in predicted] for truth in truths]
    name = f" ({chosen})" if chosen else ""
    return heatmap_chart(title or f"Confusion matrix{name}", truths, predicted, matrix,
                         xlabel="predicted", ylabel="true")


def bias_table(judgements: Sequence[ScoredAnswer], *, positive: str, title: str = "", column: str = "judge") -> Table:
    """Per judge: how often it answers ``positive`` against how often that is the truth.

    ``bias`` = predicted share − true share of ``positive``: above 0 the judge leans to ``positive``
    (e.g. calls too many pairs equivalent), below 0 away from it. ``column`` heads the first column
    (a harness with one judge may put a category in ``ScoredAnswer.judge`` for a row per category)."""
    rows = []
    for judge in judges_of(judgements):
        mine = [j for j in judgements if j.judge == judge]
        on_positive = [j for j in mine if j.truth == positive]
        on_negative = [j for j in mine if j.truth != positive]
        predicted_share = sum(j.predicted == positive for j in mine) / len(mine)
        true_share = len(on_positive) / len(mine)
        rows.append((
            judge or "judge", len(mine), accuracy(mine), accuracy(on_positive), accuracy(on_negative),
            sum(j.predicted is None for j in mine), predicted_share, true_share, predicted_share - true_share,
        ))
    return Table.of(
        [column, "items", "accuracy", f"accuracy when {positive}", f"accuracy when not {positive}",
         "no answer", f"says {positive}", f"is {positive}", "bias"],
        rows,
        caption=title or f"bias toward “{positive}”: the share of answers saying it minus the share where it is true",
    )


def strategy_overlap(
    solved: Mapping[str, Iterable[str]], *, total: int | None = None, title: str = "Strategy overlap"
) -> tuple[Block, ...]:
    """What several strategies solved, together: a matrix of items solved by both of each pair
    (the diagonal: by each), and a table of what each solved alone.

    ``solved`` maps a strategy to the ids of the items it solved; ``total`` is the number of items
    (for the "solved by none" line)."""
    sets = {name: set(items) for name, items in solved.items()}
    if not sets:
        raise InvalidArgument("strategy_overlap needs at least one strategy")
    names = list(sets)
    matrix = [[len(sets[a] & sets[b]) for b in names] for a in names]
    chart = heatmap_chart(title, names, names, matrix, xlabel="strategy", ylabel="strategy",
                          caption="items solved by both strategies; the diagonal: by each")
    union = set().union(*sets.values())
    rows = []
    for name in names:
        others = set().union(*(sets[other] for other in names if other != name))
        alone = sorted(sets[name] - others)
        rows.append((name, len(sets[name]), len(alone), ", ".join(alone[:8]) + (" …" if len(alone) > 8 else "")))
    rows.append(("any strategy", len(union), None, ""))
    if total is not None:
        rows.append(("none", total - len(union), None, ""))
    table = Table.of(["strategy", "solved", "solved alone", "items solved alone"], rows)
    return chart, table
