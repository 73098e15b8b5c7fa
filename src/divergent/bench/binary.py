"""Metrics of a yes/no equivalence judge: the confusion matrix and what is computed from it.

The positive class is "equivalent". For a set of (truth, prediction) pairs:

* **accuracy**: correct / total;
* **accuracy on equivalent pairs** (recall of the positive class) and **on inequivalent pairs**
  (recall of the negative class): EquiBench's bias table (its Table 4) puts the two side by side;
* **W-Avg** (CETBench): the mean of those two, i.e. accuracy with both classes weighted equally
  (balanced accuracy);
* **positive F1** and **negative F1**: F1 of each class taken as the positive one;
* **macro F1**: their mean; **micro F1**: F1 over both classes pooled, which for a single-label
  binary task equals the accuracy (CETBench's tables print values that differ from their accuracy,
  so their micro average must have been taken differently; ours is the standard definition).

A rate whose denominator is empty (no equivalent pairs, say) is None, never 0 or 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["Confusion", "percent"]


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _f1(tp: int, fp: int, fn: int) -> float | None:
    if tp + fp + fn == 0:
        return None
    return 2 * tp / (2 * tp + fp + fn)


def percent(value: float | None, digits: int = 1) -> str:
    """``78.0`` for 0.78; ``-`` for None."""
    return "-" if value is None else f"{100 * value:.{digits}f}"


@dataclass(frozen=True)
class Confusion:
    """Counts of a binary judge's decisions; the positive class is "equivalent"."""

    #: equivalent pairs judged equivalent
    tp: int = 0
    #: equivalent pairs judged inequivalent
    fn: int = 0
    #: inequivalent pairs judged equivalent
    fp: int = 0
    #: inequivalent pairs judged inequivalent
    tn: int = 0

    @classmethod
    def of(cls, decisions: Iterable[tuple[bool, bool]]) -> Confusion:
        """From (truth, prediction) pairs, True meaning equivalent."""
        tp = fn = fp = tn = 0
        for truth, prediction in decisions:
            if truth and prediction:
                tp += 1
            elif truth:
                fn += 1
            elif prediction:
                fp += 1
            else:
                tn += 1
        return cls(tp, fn, fp, tn)

    def __add__(self, other: Confusion) -> Confusion:
        return Confusion(self.tp + other.tp, self.fn + other.fn, self.fp + other.fp, self.tn + other.tn)

    @property
    def total(self) -> int:
        return self.tp + self.fn + self.fp + self.tn

    @property
    def equivalent_pairs(self) -> int:
        return self.tp + self.fn

    @property
    def inequivalent_pairs(self) -> int:
        return self.fp + self.tn

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.tp + self.tn, self.total)

    @property
    def accuracy_equivalent(self) -> float | None:
        return _ratio(self.tp, self.equivalent_pairs)

    @property
    def accuracy_inequivalent(self) -> float | None:
        return _ratio(self.tn, self.inequivalent_pairs)

    @property
    def balanced_accuracy(self) -> float | None:
        """CETBench's W-Avg; the plain accuracy when only one class is present."""
        rates = [r for r in (self.accuracy_equivalent, self.accuracy_inequivalent) if r is not None]
        return sum(rates) / len(rates) if rates else None

    @property
    def f1_positive(self) -> float | None:
        return _f1(self.tp, self.fp, self.fn)

    @property
    def f1_negative(self) -> float | None:
        return _f1(self.tn, self.fn, self.fp)

    @property
    def macro_f1(self) -> float | None:
        scores = [s for s in (self.f1_positive, self.f1_negative) if s is not None]
        return sum(scores) / len(scores) if scores else None

    @property
    def micro_f1(self) -> float | None:
        # pooled over both classes: true positives tp + tn, false positives = false negatives = fp + fn
        return _f1(self.tp + self.tn, self.fp + self.fn, self.fp + self.fn)

    def as_dict(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 6)

        return {
            "pairs": self.total,
            "confusion": {"tp": self.tp, "fn": self.fn, "fp": self.fp, "tn": self.tn},
            "accuracy": rounded(self.accuracy),
            "accuracy_equivalent": rounded(self.accuracy_equivalent),
            "accuracy_inequivalent": rounded(self.accuracy_inequivalent),
            "w_avg": rounded(self.balanced_accuracy),
            "f1_positive": rounded(self.f1_positive),
            "f1_negative": rounded(self.f1_negative),
            "macro_f1": rounded(self.macro_f1),
            "micro_f1": rounded(self.micro_f1),
        }
