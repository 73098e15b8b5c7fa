"""When are two outcomes the same behaviour? The equality policy, explicit and configurable.

Defaults follow the ProbeGen paper (Sec. 4): floats equal by ``math.isclose`` with its default
tolerances, NaN equal to NaN, NumPy arrays and pandas frames compared as arrays and frames (shape,
then element by element), iterators on their first 1,000 items, everything else by Python's ``==``
semantics (``1 == 1.0 == True``, ``[1] != (1,)``, dicts and sets without regard to order).

Two choices differ from the paper, on purpose:

* exceptions are equal when their *types* match (the paper took every exception as equal, available
  as ``exceptions="any"``): raising ``ValueError`` where the other raises ``TypeError`` is a
  difference callers can observe;
* argument mutation is compared by default, as CrossHair's diffbehavior does: an implementation
  that sorts its argument in place behaves differently from one that copies it.

User-defined objects (which have no meaningful ``==`` across processes) are equal when their types
have the same name and their fields are equal under this same policy.

It implements :class:`divergent.comparison.Comparison`. Presets: ``DEFAULT_POLICY``, ``PROBEGEN_POLICY`` (the ProbeGen paper's rule) and ``DIFFTRUST_POLICY``
(the DiffTrust artifact's comparison, to reproduce the incoherence paper's numbers).
"""

from __future__ import annotations

import enum
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from divergent.errors import InvalidArgument
from divergent.model import Encoded, Input, Observation, Outcome, OutcomeKind
from divergent.values import NotBuiltin, canonical_text, decode_builtin


class TimeoutRule(enum.StrEnum):
    #: a timeout says nothing about the value: an input where some implementations time out and
    #: others do not is inconclusive (reported in the notes, never as a difference)
    INCONCLUSIVE = "inconclusive"
    #: a timeout is a behaviour of its own: timing out where another returns is a difference
    DIFFER = "differ"


class ExceptionEquality(enum.StrEnum):
    ANY = "any"  # every exception is the same behaviour
    TYPE = "type"  # same exception type
    TYPE_AND_MESSAGE = "type-and-message"


@dataclass(frozen=True)
class EqualityPolicy:
    """How outcomes are compared. Every field is settable from the CLI and the API."""

    rel_tol: float = 1e-9
    abs_tol: float = 0.0
    nan_equal: bool = True
    exceptions: ExceptionEquality = ExceptionEquality.TYPE
    #: compare lists and tuples as multisets (order-insensitive)
    unordered: bool = False
    #: compare the arguments' state after the call (detects in-place mutation)
    compare_mutation: bool = True
    compare_stdout: bool = False
    #: compare only the first N items of generators and iterators
    iterable_limit: int = 1_000
    #: a list and a tuple with equal items are equal (Python says they are not)
    list_equals_tuple: bool = False
    #: whether a timeout where another implementation finishes is a difference
    timeouts: TimeoutRule = TimeoutRule.INCONCLUSIVE
    #: a user comparison of two return values (receives live builtins when the values are builtins,
    #: else their encoded form); replaces the value rule when given
    compare: Callable[[Any, Any], bool] | None = field(default=None, compare=False)
    #: compare every number (ints and bools too) as a float under the tolerances, so that with
    #: ``rel_tol=1e-3`` the ints 1000 and 1001 are equal (the DiffTrust artifact's rule)
    numbers_as_floats: bool = False
    #: compare dicts and sets as sequences in their encoded order (dicts: insertion order, keys
    #: compared like values; sets: the encoding's canonical sorted order) instead of as mappings
    #: and sets
    ordered_mappings: bool = False

    def __post_init__(self) -> None:
        if self.rel_tol < 0 or self.abs_tol < 0:
            raise InvalidArgument(f"tolerances must be >= 0, got rel_tol={self.rel_tol!r} abs_tol={self.abs_tol!r}")
        if self.iterable_limit < 0:
            raise InvalidArgument(f"iterable_limit={self.iterable_limit!r} must be >= 0")
        object.__setattr__(self, "exceptions", ExceptionEquality(self.exceptions))
        object.__setattr__(self, "timeouts", TimeoutRule(self.timeouts))

    def with_(self, **changes: Any) -> EqualityPolicy:
        return replace(self, **changes)

    @property
    def record_arguments(self) -> bool:
        """Outcomes must carry the arguments after the call when argument mutation is compared."""
        return self.compare_mutation

    def essential(self) -> EqualityPolicy:
        """What a shrunk counterexample must still differ in: return values and exceptions (not
        argument mutation or printed output)."""
        return self.with_(compare_mutation=False, compare_stdout=False)

    def describe(self) -> str:
        """A compact text of the fields that differ from the defaults ("default" if none)."""
        changed = [
            f"{f.name}={getattr(self, f.name)!s}"
            for f in fields(self)
            if f.name != "compare" and getattr(self, f.name) != f.default
        ]
        if self.compare is not None:
            changed.append(f"compare={getattr(self.compare, '__qualname__', 'custom')}")
        return "default" if not changed else ", ".join(changed)

    # -- outcomes -------------------------------------------------------------------------------

    def outcomes_equal(self, a: Outcome, b: Outcome) -> bool:
        if a.kind is not b.kind:
            return False
        if a.kind is OutcomeKind.RETURNED:
            if not self._return_values_equal(a.value, b.value):
                return False
        elif a.kind is OutcomeKind.RAISED:
            if not self._exceptions_equal(a, b):
                return False
        else:
            return True  # timeout vs timeout, crash vs crash: the same (non-)behaviour
        if self.compare_mutation and not self.values_equal(a.args_after, b.args_after):
            return False
        return not (self.compare_stdout and a.stdout != b.stdout)

    def partition(self, outcomes: Sequence[Outcome]) -> tuple[tuple[int, ...], ...]:
        """Group implementation indices into behaviour classes (first member is the representative)."""
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
        """Indices whose outcome does not count toward a difference (timeouts, unless they differ)."""
        if self.timeouts is TimeoutRule.DIFFER:
            return ()
        timed_out = tuple(i for i, o in enumerate(outcomes) if o.kind is OutcomeKind.TIMEOUT)
        return () if len(timed_out) == len(outcomes) else timed_out

    def observe(self, item: Input, outcomes: tuple[Outcome, ...]) -> Observation:
        """The observation of one input: classes, and which outcomes are inconclusive."""
        return Observation(
            input=item, outcomes=outcomes, classes=self.partition(outcomes), inconclusive=self.inconclusive(outcomes)
        )

    def _exceptions_equal(self, a: Outcome, b: Outcome) -> bool:
        if self.exceptions is ExceptionEquality.ANY:
            return True
        assert a.exception is not None and b.exception is not None
        if a.exception.type_name != b.exception.type_name:
            return False
        return self.exceptions is ExceptionEquality.TYPE or a.exception.message == b.exception.message

    def _return_values_equal(self, a: Encoded, b: Encoded) -> bool:
        if self.compare is None:
            return self.values_equal(a, b)
        try:
            left, right = decode_builtin(a), decode_builtin(b)
        except NotBuiltin:
            left, right = a, b
        return bool(self.compare(left, right))

    # -- values ---------------------------------------------------------------------------------

    def values_equal(self, a: Encoded, b: Encoded) -> bool:
        if a is b and not isinstance(a, float):
            return True
        a_number, b_number = _is_number(a), _is_number(b)
        if a_number or b_number:
            return a_number and b_number and self._numbers_equal(a, b)
        if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
            return a == b
        if not (isinstance(a, list) and isinstance(b, list) and a and b):
            return a == b
        tag_a, tag_b = a[0], b[0]
        if tag_a != tag_b:
            if {tag_a, tag_b} == {"set", "frozenset"}:
                return self._sets_equal(a[1], b[1])
            if self.list_equals_tuple and {tag_a, tag_b} == {"list", "tuple"}:
                return self._sequences_equal(a[1], b[1])
            return False
        if tag_a in ("list", "tuple"):
            return self._sequences_equal(a[1], b[1])
        if tag_a in ("set", "frozenset"):
            return self._sets_equal(a[1], b[1])
        if tag_a == "dict":
            return self._dicts_equal(a[1], b[1])
        if tag_a == "complex":
            return self._numbers_equal(a[1], b[1]) and self._numbers_equal(a[2], b[2])
        if tag_a == "iter":
            limit = self.iterable_limit
            return self._sequences_equal(a[2][:limit], b[2][:limit], ordered=True)
        if tag_a == "ndarray":
            return a[2] == b[2] and self._sequences_equal(a[3], b[3], ordered=True)
        if tag_a == "dataframe":
            return (
                a[3] == b[3]
                and self._sequences_equal(a[1], b[1], ordered=True)
                and self._sequences_equal(a[2], b[2], ordered=True)
                and len(a[4]) == len(b[4])
                and all(self._sequences_equal(r, s, ordered=True) for r, s in zip(a[4], b[4], strict=True))
            )
        if tag_a == "series":
            return (
                a[3] == b[3]
                and self.values_equal(a[1], b[1])
                and self._sequences_equal(a[2], b[2], ordered=True)
                and self._sequences_equal(a[4], b[4], ordered=True)
            )
        if tag_a == "object":
            return (
                a[1] == b[1]
                and [k for k, _ in a[2]] == [k for k, _ in b[2]]
                and all(self.values_equal(x, y) for (_, x), (_, y) in zip(a[2], b[2], strict=True))
            )
        if tag_a == "enum":
            return a[1] == b[1] and a[2] == b[2]
        if tag_a == "fraction":
            return a[1] == b[1] and a[2] == b[2]
        return a == b

    def _numbers_equal(self, a: Any, b: Any) -> bool:
        if type(a) is not float and type(b) is not float and not self.numbers_as_floats:
            return a == b  # ints and bools, exactly, as Python compares them
        if not (_fits_float(a) and _fits_float(b)):
            return a == b  # an int beyond the float range: only exact equality is meaningful
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return self.nan_equal and math.isnan(a) and math.isnan(b)
        return a == b or math.isclose(a, b, rel_tol=self.rel_tol, abs_tol=self.abs_tol)

    def _sequences_equal(self, a: list, b: list, *, ordered: bool | None = None) -> bool:
        if len(a) != len(b):
            return False
        if ordered is None:
            ordered = not self.unordered
        if ordered:
            return all(self.values_equal(x, y) for x, y in zip(a, b, strict=True))
        return self._unordered_equal(a, b)

    def _unordered_equal(self, a: list, b: list) -> bool:
        if len(a) != len(b):
            return False
        if sorted(map(canonical_text, a)) == sorted(map(canonical_text, b)):
            return True
        # Tolerant matching (floats within tolerance): greedy, fine for the sizes shown to users.
        remaining = list(b)
        for item in a:
            for position, candidate in enumerate(remaining):
                if self.values_equal(item, candidate):
                    del remaining[position]
                    break
            else:
                return False
        return True

    def _sets_equal(self, a: list, b: list) -> bool:
        if self.ordered_mappings:
            # The encoding sorts set items canonically, so this is "sorted order", not the
            # original iteration order (which the encoding does not keep).
            return self._sequences_equal(a, b, ordered=True)
        return self._unordered_equal(a, b)

    def _dicts_equal(self, a: list, b: list) -> bool:
        if len(a) != len(b):
            return False
        if self.ordered_mappings:
            # item by item in insertion order; keys under the same rule as values
            return all(
                self.values_equal(key_a, key_b) and self.values_equal(value_a, value_b)
                for (key_a, value_a), (key_b, value_b) in zip(a, b, strict=True)
            )
        left = {canonical_text(k): v for k, v in a}
        right = {canonical_text(k): v for k, v in b}
        if left.keys() != right.keys():
            return False
        return all(self.values_equal(left[k], right[k]) for k in left)


def _fits_float(value: float) -> bool:
    """Whether a number converts to a float without overflow (floats always do)."""
    return type(value) is float or abs(value) <= _LARGEST_FLOAT


_LARGEST_FLOAT = int(sys.float_info.max)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, str)


DEFAULT_POLICY = EqualityPolicy()
#: the ProbeGen paper's rule (Sec. 4), including "all exceptions are equal"
PROBEGEN_POLICY = EqualityPolicy(exceptions=ExceptionEquality.ANY, compare_mutation=False)
#: the DiffTrust artifact's comparison (the incoherence paper, shared/papers/001): every number,
#: bools included, compared as a float with relative tolerance 1e-3; a list equals a tuple with
#: equal items; dicts and sets compared in order, item by item; exceptions equal when their types
#: match whatever the message; neither argument mutation nor stdout compared. One deviation is
#: forced: the artifact compared sets in Python's iteration order, which the encoding does not keep
#: (it sorts set items canonically), so sets are compared in that sorted order. NaN handling is not
#: described for the artifact; the default (NaN equals NaN) is kept.
DIFFTRUST_POLICY = EqualityPolicy(
    rel_tol=1e-3,
    abs_tol=0.0,
    numbers_as_floats=True,
    list_equals_tuple=True,
    ordered_mappings=True,
    exceptions=ExceptionEquality.TYPE,
    compare_mutation=False,
    compare_stdout=False,
)
