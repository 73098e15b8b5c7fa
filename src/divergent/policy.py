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

How values compare is one replaceable object, the policy's ``values`` (a :class:`ValueRules`): the
default is the rule above; a subclass changes how numbers, sequences, mappings or sets compare
while the policy's other settings (tolerances, exceptions, mutation, ...) still apply. The DiffTrust
artifact's rule is such a subclass (:mod:`divergent.incoherence.difftrust`).

It implements :class:`divergent.comparison.Comparison`. Presets: ``DEFAULT_POLICY`` and ``PROBEGEN_POLICY`` (the ProbeGen paper's rule).
"""

from __future__ import annotations

import enum
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

from divergent.comparison import TimeoutRule, inconclusive_timeouts
from divergent.errors import InvalidArgument
from divergent.records import Encoded, Input, Observation, Outcome, OutcomeKind
from divergent.values import NotBuiltin, canonical_text, decode_builtin


class ExceptionEquality(enum.StrEnum):
    ANY = "any"  # every exception is the same behaviour
    TYPE = "type"  # same exception type
    TYPE_AND_MESSAGE = "type-and-message"


@dataclass(frozen=True)
class ValueRules:
    """When two encoded return values (or argument states) are the same behaviour: the value rule
    of an :class:`EqualityPolicy`, its ``values`` field.

    One method per kind of value, each given the policy whose settings it reads (tolerances, NaN,
    ``unordered``, ``list_equals_tuple``, ``iterable_limit``). This class is divergent's rule. For
    another, subclass it and override what differs -- :meth:`numbers_equal`, :meth:`sequences_equal`,
    :meth:`sets_equal`, :meth:`mappings_equal` (they call :meth:`equal` for the items inside) -- set
    ``name`` (``describe()`` shows ``values=NAME``) and pass an instance: ``EqualityPolicy(values=...)``.
    A rule must say every value equals itself (NaN aside, under ``nan_equal=False``): partitions
    rely on it.
    """

    #: how ``EqualityPolicy.describe()`` names the rule
    name: ClassVar[str] = "default"

    def __str__(self) -> str:
        return self.name

    def equal(self, a: Encoded, b: Encoded, policy: EqualityPolicy) -> bool:
        """Whether two encoded values are equal (dispatches on the encoding's tags)."""
        if a is b and not isinstance(a, float):
            return True
        a_number, b_number = isinstance(a, _NUMBER_TYPES), isinstance(b, _NUMBER_TYPES)
        if a_number or b_number:
            return a_number and b_number and self.numbers_equal(a, b, policy)
        if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
            return a == b
        if not (isinstance(a, list) and isinstance(b, list) and a and b):
            return a == b
        tag_a, tag_b = a[0], b[0]
        if tag_a != tag_b:
            if {tag_a, tag_b} == {"set", "frozenset"}:
                return self.sets_equal(a[1], b[1], policy)
            if policy.list_equals_tuple and {tag_a, tag_b} == {"list", "tuple"}:
                return self.sequences_equal(a[1], b[1], policy)
            return False
        if tag_a in ("list", "tuple"):
            return self.sequences_equal(a[1], b[1], policy)
        if tag_a in ("set", "frozenset"):
            return self.sets_equal(a[1], b[1], policy)
        if tag_a == "dict":
            return self.mappings_equal(a[1], b[1], policy)
        if tag_a == "complex":
            return self.numbers_equal(a[1], b[1], policy) and self.numbers_equal(a[2], b[2], policy)
        if tag_a == "iter":
            limit = policy.iterable_limit
            return self.sequences_equal(a[2][:limit], b[2][:limit], policy, ordered=True)
        if tag_a == "ndarray":
            return a[2] == b[2] and self.sequences_equal(a[3], b[3], policy, ordered=True)
        if tag_a == "dataframe":
            return (
                a[3] == b[3]
                and self.sequences_equal(a[1], b[1], policy, ordered=True)
                and self.sequences_equal(a[2], b[2], policy, ordered=True)
                and len(a[4]) == len(b[4])
                and all(self.sequences_equal(r, s, policy, ordered=True) for r, s in zip(a[4], b[4], strict=True))
            )
        if tag_a == "series":
            return (
                a[3] == b[3]
                and self.equal(a[1], b[1], policy)
                and self.sequences_equal(a[2], b[2], policy, ordered=True)
                and self.sequences_equal(a[4], b[4], policy, ordered=True)
            )
        if tag_a == "object":
            return (
                a[1] == b[1]
                and [k for k, _ in a[2]] == [k for k, _ in b[2]]
                and all(self.equal(x, y, policy) for (_, x), (_, y) in zip(a[2], b[2], strict=True))
            )
        if tag_a == "enum":
            return a[1] == b[1] and a[2] == b[2]
        if tag_a == "fraction":
            return a[1] == b[1] and a[2] == b[2]
        return a == b

    def numbers_equal(self, a: Any, b: Any, policy: EqualityPolicy) -> bool:
        """Ints and bools exactly, as Python compares them; a float on either side under the
        tolerances (:func:`floats_equal`)."""
        if type(a) is not float and type(b) is not float:
            return a == b
        return floats_equal(a, b, policy)

    def sequences_equal(
        self, a: list, b: list, policy: EqualityPolicy, *, ordered: bool | None = None
    ) -> bool:
        """Item by item (``ordered``, by default unless the policy is ``unordered``), else as multisets."""
        if len(a) != len(b):
            return False
        if ordered is None:
            ordered = not policy.unordered
        if ordered:
            return all(self.equal(x, y, policy) for x, y in zip(a, b, strict=True))
        return self.unordered_equal(a, b, policy)

    def unordered_equal(self, a: list, b: list, policy: EqualityPolicy) -> bool:
        """As multisets: exactly equal items first, then a tolerant greedy matching."""
        if len(a) != len(b):
            return False
        if sorted(map(canonical_text, a)) == sorted(map(canonical_text, b)):
            return True
        # Tolerant matching (floats within tolerance): greedy, fine for the sizes shown to users.
        remaining = list(b)
        for item in a:
            for position, candidate in enumerate(remaining):
                if self.equal(item, candidate, policy):
                    del remaining[position]
                    break
            else:
                return False
        return True

    def sets_equal(self, a: list, b: list, policy: EqualityPolicy) -> bool:
        """Set items (in the encoding's canonical order) as multisets: order does not matter."""
        return self.unordered_equal(a, b, policy)

    def mappings_equal(self, a: list, b: list, policy: EqualityPolicy) -> bool:
        """Dict items (``[key, value]`` pairs): the same keys exactly, values equal, in any order."""
        if len(a) != len(b):
            return False
        left = {canonical_text(k): v for k, v in a}
        right = {canonical_text(k): v for k, v in b}
        if left.keys() != right.keys():
            return False
        return all(self.equal(left[k], right[k], policy) for k in left)


def floats_equal(a: Any, b: Any, policy: EqualityPolicy) -> bool:
    """Two numbers compared as floats under the policy's tolerances and NaN rule (an int beyond
    the float range only exactly)."""
    if not (_fits_float(a) and _fits_float(b)):
        return a == b  # an int beyond the float range: only exact equality is meaningful
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return policy.nan_equal and math.isnan(a) and math.isnan(b)
    return a == b or math.isclose(a, b, rel_tol=policy.rel_tol, abs_tol=policy.abs_tol)


#: divergent's value rule (the default of every policy)
DEFAULT_VALUE_RULES = ValueRules()


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
    #: whether a timeout where another implementation finishes is a difference (by default only
    #: a hang is: see :class:`TimeoutRule`)
    timeouts: TimeoutRule = TimeoutRule.HANG
    #: a user comparison of two return values (receives live builtins when the values are builtins,
    #: else their encoded form); replaces the value rule when given
    compare: Callable[[Any, Any], bool] | None = field(default=None, compare=False)
    #: how values compare: numbers, sequences, mappings, sets (a :class:`ValueRules`; subclass it
    #: to change parts, e.g. the DiffTrust artifact's rule in divergent.incoherence.difftrust)
    values: ValueRules = DEFAULT_VALUE_RULES

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
            # the value rule called directly unless a user comparison replaces it: the hottest path
            if self.compare is None:
                if not self.values.equal(a.value, b.value, self):
                    return False
            elif not self._compare_values(a.value, b.value):
                return False
        elif a.kind is OutcomeKind.RAISED:
            if not self._exceptions_equal(a, b):
                return False
        else:
            return True  # timeout vs timeout, crash vs crash: the same (non-)behaviour
        if self.compare_mutation and not self.values.equal(a.args_after, b.args_after, self):
            return False
        return not (self.compare_stdout and a.stdout != b.stdout)

    @property
    def identical_outcomes_equal(self) -> bool:
        """Whether an outcome is always the same behaviour as itself. Not with ``nan_equal=False``
        (a NaN differs from itself) nor with a user ``compare``, which may say anything."""
        return self.nan_equal and self.compare is None

    def partition(self, outcomes: Sequence[Outcome]) -> tuple[tuple[int, ...], ...]:
        """Group implementation indices into behaviour classes (first member is the representative).

        An outcome object met again joins the class of its first occurrence without a comparison
        (when :attr:`identical_outcomes_equal`): the implementation matrix hands out one object for
        the equal outcomes of an input, so wide rows cost one comparison per behaviour."""
        classes: list[list[int]] = []
        class_of: dict[int, list[int]] | None = {} if self.identical_outcomes_equal else None
        for index, outcome in enumerate(outcomes):
            if class_of is not None:
                known = class_of.get(id(outcome))
                if known is not None:
                    known.append(index)
                    continue
            for members in classes:
                if self.outcomes_equal(outcomes[members[0]], outcome):
                    members.append(index)
                    break
            else:
                members = [index]
                classes.append(members)
            if class_of is not None:
                class_of[id(outcome)] = members
        return tuple(tuple(members) for members in classes)

    def inconclusive(self, outcomes: Sequence[Outcome]) -> tuple[int, ...]:
        """Indices whose outcome does not count toward a difference: timeouts, unless timeouts
        differ (``DIFFER``) or the timeout is a hang (``HANG``)."""
        return inconclusive_timeouts(outcomes, self.timeouts)

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

    def _compare_values(self, a: Encoded, b: Encoded) -> bool:
        """The user comparison, given live builtins when the values are builtins."""
        assert self.compare is not None
        try:
            left, right = decode_builtin(a), decode_builtin(b)
        except NotBuiltin:
            left, right = a, b
        return bool(self.compare(left, right))

    # -- values ---------------------------------------------------------------------------------

    def values_equal(self, a: Encoded, b: Encoded) -> bool:
        """Whether two encoded values are equal under this policy's value rule."""
        return self.values.equal(a, b, self)


def _fits_float(value: float) -> bool:
    """Whether a number converts to a float without overflow (floats always do)."""
    return type(value) is float or abs(value) <= _LARGEST_FLOAT


_LARGEST_FLOAT = int(sys.float_info.max)


#: numbers, bools included (a tuple: the fastest isinstance test on this hot path)
_NUMBER_TYPES = (int, float)


DEFAULT_POLICY = EqualityPolicy()
#: the ProbeGen paper's rule (Sec. 4), including "all exceptions are equal"
PROBEGEN_POLICY = EqualityPolicy(exceptions=ExceptionEquality.ANY, compare_mutation=False)
