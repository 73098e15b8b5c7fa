"""The comparison seam: when two outcomes are the same behaviour.

The search loop, confirmation, shrinking, clustering and the reports ask a :class:`Comparison`
whether outcomes are equal and how a tuple of outcomes splits into behaviour classes; they never
look inside values themselves. :class:`~divergent.policy.EqualityPolicy` is the comparison for
Python values; :class:`~divergent.text_comparison.OutputComparison` compares the output of whole
programs (exact text, tokens, lines, numbers within a tolerance, a checker program's verdicts), and paper presets (DiffTrust's) are comparisons too, composed from
these rather than flags inside them.

:func:`behaviour_fingerprint` names what the programs did on an input exactly (for novelty, not for
equality), whatever the comparison.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Sequence
from typing import Any, Protocol

from divergent.records import AnyInput, Observation, Outcome, OutcomeKind
from divergent.values import canonical_text


class TimeoutRule(enum.StrEnum):
    """What a timeout where another program finishes is: one rule for every comparison."""

    #: a hang is a behaviour of its own: a call that runs past the escalated limit
    #: (``Limits.hang_factor`` times the slowest other implementation's time on the input, at least
    #: ``Limits.timeout``) where others finish is a difference; a call that is only slow (it times
    #: out at a smaller limit, or finishes when given longer) is not
    HANG = "hang"
    #: a timeout says nothing about the value: an input where some implementations time out and
    #: others do not is inconclusive (reported in the notes, never as a difference)
    INCONCLUSIVE = "inconclusive"
    #: a timeout is a behaviour of its own: timing out (at ``Limits.timeout``) where another
    #: returns is a difference
    DIFFER = "differ"


def inconclusive_timeouts(outcomes: Sequence[Outcome], rule: TimeoutRule) -> tuple[int, ...]:
    """The indices whose timeout does not count toward a difference under ``rule``: every timeout
    where another program finished, unless timeouts differ (``DIFFER``) or it is a hang (``HANG``).
    When every program timed out, none is inconclusive (they agree)."""
    if rule is TimeoutRule.DIFFER:
        return ()
    hangs_count = rule is TimeoutRule.HANG
    timed_out = tuple(
        i for i, o in enumerate(outcomes) if o.kind is OutcomeKind.TIMEOUT and not (hangs_count and o.hang)
    )
    if len(timed_out) == len(outcomes):
        return ()
    return timed_out


class Comparison(Protocol):
    """Decides which outcomes are the same behaviour."""

    #: whether outcomes must carry the arguments' state after each call (argument mutation is compared)
    record_arguments: bool
    #: what a timeout where another program finishes is (the search's budget and re-runs follow it)
    timeouts: TimeoutRule

    def outcomes_equal(self, a: Outcome, b: Outcome) -> bool:
        """Whether two outcomes are the same behaviour."""
        ...

    def partition(self, outcomes: Sequence[Outcome]) -> tuple[tuple[int, ...], ...]:
        """Program indices grouped into behaviour classes (first member is the representative)."""
        ...

    def inconclusive(self, outcomes: Sequence[Outcome]) -> tuple[int, ...]:
        """Indices whose outcome does not count toward a difference (e.g. a timeout where others finish)."""
        ...

    def observe(self, item: AnyInput, outcomes: tuple[Outcome, ...]) -> Observation:
        """The observation of one input: its outcomes, classes and inconclusive members."""
        ...

    def essential(self) -> Comparison:
        """The comparison a smaller counterexample must still differ under, when the found one
        differs under it (for Python values: return values and exceptions, not argument mutation or
        printed output), so shrinking keeps the kind of difference the user cares about."""
        ...

    def describe(self) -> str:
        """A compact text of the rules in force ("default" when none differs from the defaults)."""
        ...


#: outputs up to this many characters are hashed whole for a fingerprint; longer ones by samples
_WHOLE_DIGEST = 1 << 20
_SAMPLES, _SAMPLE = 64, 4096


def output_digest(text: str) -> str:
    """A short digest of a whole program's output, for novelty only (never for equality): a long
    output (up to tens of MiB) is hashed by its length, its first and last 256 KiB and 64 evenly
    spaced samples, so the work per output is bounded."""
    if len(text) > _WHOLE_DIGEST:
        step = len(text) // _SAMPLES
        pieces = [text[: _WHOLE_DIGEST // 4], text[-_WHOLE_DIGEST // 4 :], str(len(text))]
        pieces += [text[i * step : i * step + _SAMPLE] for i in range(_SAMPLES)]
        text = "\0".join(pieces)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def behaviour_fingerprint(observation: Observation, *, with_values: bool = True) -> str:
    """A text identifying exactly what the programs did on an input (for novelty, not for equality):
    the partition into classes and, per program, the outcome kind and the returned value
    (``with_values``) or exception type.

    Computed once per observation and kind (the search and several engines ask for it): values are
    in the safe encoding (JSON types only), whose repr identifies them exactly."""
    cache_name = "_fingerprint" if with_values else "_kind_fingerprint"
    cached = observation.__dict__.get(cache_name)
    if cached is not None:
        return cached
    parts: list[Any] = [observation.classes]
    for outcome in observation.outcomes:
        kind = outcome.kind
        if kind is OutcomeKind.RETURNED:
            parts.append(("returned", outcome.value) if with_values else "returned")
        elif kind is OutcomeKind.RAISED:
            parts.append(("raised", outcome.exception.type_name if outcome.exception else ""))
        elif kind is OutcomeKind.OK:
            parts.append(("ok", output_digest(outcome.stdout)) if with_values else "ok")
        else:
            parts.append(kind.value)
    try:
        text = repr(parts)
    except (RecursionError, ValueError):  # a deeply nested value: its canonical text has limits
        text = canonical_text([list(map(list, observation.classes))])
    # The record is frozen; its __dict__ is a cache like Input.key's.
    observation.__dict__[cache_name] = text
    return text
