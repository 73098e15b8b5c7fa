"""When two runs of whole programs are the same behaviour: the comparison of program output.

:class:`OutputComparison` implements :class:`divergent.comparison.Comparison` for the outcomes of
whole programs (:class:`~divergent.programs.StdinProgram`). First the kinds: a run that printed
(``ok``) differs from one that crashed, ran out of time or memory, or wrote too much; two failures of
the same kind are the same behaviour (a judge says "runtime error" whatever the exit code). Timeouts
follow the search's one rule (:class:`~divergent.comparison.TimeoutRule`, ``--timeouts``). Then, for
two runs that printed, the output mode:

``tokens`` (the default)
    the whitespace-separated tokens are equal (spaces, newlines and trailing blanks do not matter);
``exact``
    the texts are equal, byte for byte;
``lines``
    the lines are equal once trailing blanks are stripped, trailing empty lines ignored;
``float``
    tokens, and tokens that are both numbers are equal within ``float_tol``, absolute or relative
    (testlib's rule: ``|a - b| <= tol`` or ``|a - b| <= tol * max(|a|, |b|)``).

In every mode an output whose tokens are all "yes"/"no" is compared without regard to case
(judges accept ``Yes`` for ``YES``). With a checker program (``--checker``) the runner asks the
checker which outputs are the same answer and records it in each outcome (``accepted_with``); this
comparison then compares that.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from divergent.comparison import TimeoutRule, inconclusive_timeouts
from divergent.errors import InvalidArgument
from divergent.records import AnyInput, Observation, Outcome, OutcomeKind

_YES_NO = frozenset({"yes", "no"})


class OutputMode(enum.StrEnum):
    TOKENS = "tokens"
    EXACT = "exact"
    LINES = "lines"
    FLOAT = "float"


@dataclass(frozen=True)
class OutputComparison:
    """How the outputs of whole programs are compared (a :class:`~divergent.comparison.Comparison`)."""

    mode: OutputMode = OutputMode.TOKENS
    #: the absolute or relative tolerance of ``float`` mode
    float_tol: float = 1e-6
    #: a checker decided the classes (outcomes carry ``accepted_with``); its label, for ``describe``
    checker: str | None = None
    #: what a timeout where another program finishes is (the search's one rule: ``--timeouts``)
    timeouts: TimeoutRule = TimeoutRule.HANG
    #: whole programs have no arguments whose state could change
    record_arguments: bool = False

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "mode", OutputMode(self.mode))
        except ValueError:
            choices = ", ".join(m.value for m in OutputMode)
            raise InvalidArgument(f"output mode {self.mode!r}: choose from {choices}") from None
        try:
            object.__setattr__(self, "timeouts", TimeoutRule(self.timeouts))
        except ValueError:
            choices = ", ".join(rule.value for rule in TimeoutRule)
            raise InvalidArgument(f"timeouts={self.timeouts!r}: choose from {choices}") from None
        if not (self.float_tol >= 0 and math.isfinite(self.float_tol)):
            raise InvalidArgument(f"float tolerance {self.float_tol!r} must be a finite number >= 0")

    # -- texts ----------------------------------------------------------------------------------

    def outputs_equal(self, a: str, b: str) -> bool:
        """Whether two printed outputs are the same answer under the mode."""
        if a == b:
            return True
        if self.mode is OutputMode.EXACT:
            return _yes_no_equal(a.split(), b.split())
        if self.mode is OutputMode.LINES:
            left, right = _lines(a), _lines(b)
            return left == right or _yes_no_equal(a.split(), b.split())
        left_tokens, right_tokens = a.split(), b.split()
        if left_tokens == right_tokens:
            return True
        if len(left_tokens) != len(right_tokens):
            return False
        if _yes_no_equal(left_tokens, right_tokens):
            return True
        if self.mode is OutputMode.FLOAT:
            return all(self.tokens_equal(x, y) for x, y in zip(left_tokens, right_tokens, strict=True))
        return False

    def tokens_equal(self, a: str, b: str) -> bool:
        """One token against another: exactly, or (float mode) as numbers within the tolerance."""
        if a == b:
            return True
        if self.mode is not OutputMode.FLOAT:
            return False
        x, y = _number(a), _number(b)
        if x is None or y is None:
            return False
        difference = abs(x - y)
        return difference <= self.float_tol or difference <= self.float_tol * max(abs(x), abs(y))

    # -- the Comparison protocol ------------------------------------------------------------------

    def outcomes_equal(self, a: Outcome, b: Outcome) -> bool:
        if a.kind is not b.kind:
            return False
        if a.kind is not OutcomeKind.OK:
            return True  # the same failure (a runtime error is a runtime error, whatever it printed)
        if self.checker is not None and a.accepted_with is not None and b.accepted_with is not None:
            return a.accepted_with == b.accepted_with
        return self.outputs_equal(a.stdout, b.stdout)

    def partition(self, outcomes: Sequence[Outcome]) -> tuple[tuple[int, ...], ...]:
        classes: list[list[int]] = []
        for index, outcome in enumerate(outcomes):
            for members in classes:
                if self.outcomes_equal(outcomes[members[0]], outcome):
                    members.append(index)
                    break
            else:
                classes.append([index])
        return tuple(tuple(members) for members in classes)

    def inconclusive(self, outcomes: Sequence[Outcome]) -> tuple[int, ...]:
        return inconclusive_timeouts(outcomes, self.timeouts)

    def observe(self, item: AnyInput, outcomes: tuple[Outcome, ...]) -> Observation:
        return Observation(input=item, outcomes=outcomes, classes=self.partition(outcomes),
                           inconclusive=self.inconclusive(outcomes))

    def essential(self) -> OutputComparison:
        return self

    def describe(self) -> str:
        if self.checker is not None:
            text = f"checker={self.checker}"
        elif self.mode is OutputMode.FLOAT:
            text = f"output=float(tol={self.float_tol:g})"
        else:
            text = f"output={self.mode.value}"
        if self.timeouts is not TimeoutRule.INCONCLUSIVE:
            text += f", timeouts={self.timeouts.value}"
        return text

    # -- for reports ----------------------------------------------------------------------------

    def first_difference(self, a: str, b: str) -> int | None:
        """The index of the first token where ``b`` differs from ``a`` (None if none does); the
        length of the shorter when one is a prefix of the other."""
        left, right = a.split(), b.split()
        for index, (x, y) in enumerate(zip(left, right, strict=False)):
            if not (self.tokens_equal(x, y) or x.lower() == y.lower() in _YES_NO):
                return index
        return None if len(left) == len(right) else min(len(left), len(right))


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _yes_no_equal(left: list[str], right: list[str]) -> bool:
    """Outputs made only of yes/no, compared without regard to case."""
    if len(left) != len(right) or not left:
        return False
    lowered_left = [t.lower() for t in left]
    if not all(t in _YES_NO for t in lowered_left):
        return False
    return lowered_left == [t.lower() for t in right]


def _number(token: str) -> float | None:
    if not token or token[0] not in "+-.0123456789":
        return None
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


#: the default comparison of whole programs
DEFAULT_OUTPUT_COMPARISON = OutputComparison()
