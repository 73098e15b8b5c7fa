"""The safe encoding and the equality policy."""

from __future__ import annotations

import dataclasses
import json
import math
from collections import namedtuple
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from divergent.errors import InvalidArgument
from divergent.policy import DEFAULT_POLICY, EqualityPolicy, ExceptionEquality, ValueRules
from divergent.records import ExceptionInfo, Outcome, OutcomeKind
from divergent.values import (
    EncodeLimits,
    NotBuiltin,
    canonical_text,
    decode_builtin,
    encode,
    json_safe,
    loads,
    render,
    to_source,
)

builtin_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary() | st.complex_numbers(),
    lambda children: st.lists(children, max_size=4)
    | st.tuples(children, children)
    | st.dictionaries(st.text(max_size=3) | st.integers(), children, max_size=3)
    | st.frozensets(st.integers() | st.text(max_size=3), max_size=3),
    max_leaves=12,
)


@given(builtin_values)
def test_builtins_round_trip_through_json(value: object) -> None:
    text = json.dumps(encode(value))
    rebuilt = decode_builtin(loads(text))
    assert canonical_text(encode(rebuilt)) == canonical_text(encode(value))


@given(builtin_values)
def test_to_source_rebuilds_the_value(value: object) -> None:
    namespace: dict = {}
    rebuilt = eval(to_source(value), namespace)  # our own generated text, in a test
    assert canonical_text(encode(rebuilt)) == canonical_text(encode(value))


def test_sets_encode_canonically() -> None:
    assert encode({3, 1, 2}) == encode({2, 3, 1}) == ["set", [1, 2, 3]]


def test_cycles_depth_and_size_limits() -> None:
    a: list = [1]
    a.append(a)
    assert encode(a) == ["list", [1, ["cycle", 1]]]
    deep: list = []
    for _ in range(200):
        deep = [deep]
    assert "depth" in json.dumps(encode(deep))
    assert encode(list(range(100)), EncodeLimits(max_nodes=10))[1][-1] == ["truncated", "size"] or "size" in json.dumps(
        encode([[i] for i in range(100)], EncodeLimits(max_nodes=10))
    )


def test_generators_take_the_first_thousand_items() -> None:
    def forever():
        n = 0
        while True:
            yield n
            n += 1

    encoded = encode(forever())
    assert encoded[0] == "iter" and len(encoded[2]) == 1000 and encoded[3] is True


def test_objects_dataclasses_slots_and_others() -> None:
    @dataclasses.dataclass
    class Point:
        x: int
        y: int

    class Slotted:
        __slots__ = ("a",)

        def __init__(self) -> None:
            self.a = 1

    assert encode(Point(1, 2))[0] == "object" and encode(Point(1, 2))[2] == [["x", 1], ["y", 2]]
    assert encode(Slotted())[2] == [["a", 1]]
    assert encode(Decimal("1.10")) == ["decimal", "1.10"]
    assert encode(Fraction(1, 3)) == ["fraction", 1, 3]
    assert encode(namedtuple("P", "a b")(1, 2)) == ["tuple", [1, 2]]
    assert encode(len)[0] == "opaque"
    assert encode(2**40000)[0] == "bigint"


def test_numpy_and_pandas() -> None:
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    assert encode(np.array([[1, 2], [3, 4]]))[:3] == ["ndarray", "int64", [2, 2]]
    assert encode(np.int64(3)) == 3
    frame = encode(pd.DataFrame({"a": [1, 2]}))
    assert frame[0] == "dataframe" and frame[4] == [[1], [2]]
    assert DEFAULT_POLICY.values_equal(encode(np.array([1.0, np.nan])), encode(np.array([1.0, np.nan])))
    assert not DEFAULT_POLICY.values_equal(encode(np.array([1, 2])), encode(np.array([[1, 2]])))


def test_decode_refuses_objects() -> None:
    with pytest.raises(NotBuiltin):
        decode_builtin(["object", "os.system", []])
    with pytest.raises(NotBuiltin):
        decode_builtin(["opaque", "x", "y"])


def test_render_and_json_safe() -> None:
    assert render(encode({"a": [1, 2.5, float("nan")]})) == "{'a': [1, 2.5, nan]}"
    assert render(encode((1,))) == "(1,)"
    assert render(encode(set())) == "set()"
    assert json_safe(encode([float("inf")])) == ["list", [["float", "inf"]]]


def returned(value: object, args: object = None) -> Outcome:
    return Outcome(kind=OutcomeKind.RETURNED, value=encode(value), args_after=args)


def raised(name: str, message: str = "") -> Outcome:
    return Outcome(kind=OutcomeKind.RAISED, exception=ExceptionInfo(type_name=name, message=message))


def test_floats_nan_and_tolerance() -> None:
    policy = DEFAULT_POLICY
    assert policy.outcomes_equal(returned(0.1 + 0.2), returned(0.3))
    assert not policy.outcomes_equal(returned(1.0), returned(1.001))
    assert policy.with_(rel_tol=1e-2).outcomes_equal(returned(1.0), returned(1.001))
    assert policy.outcomes_equal(returned(float("nan")), returned(float("nan")))
    assert not policy.with_(nan_equal=False).outcomes_equal(returned(math.nan), returned(math.nan))
    assert policy.outcomes_equal(returned(1), returned(1.0))
    assert policy.outcomes_equal(returned(True), returned(1))


def test_containers_follow_python_semantics() -> None:
    policy = DEFAULT_POLICY
    assert not policy.outcomes_equal(returned([1, 2]), returned((1, 2)))
    assert policy.with_(list_equals_tuple=True).outcomes_equal(returned([1, 2]), returned((1, 2)))
    assert policy.outcomes_equal(returned({"a": 1, "b": 2}), returned({"b": 2, "a": 1}))
    assert policy.outcomes_equal(returned({1, 2}), returned(frozenset({2, 1})))
    assert not policy.outcomes_equal(returned([1, 2]), returned([2, 1]))
    assert policy.with_(unordered=True).outcomes_equal(returned([1, 2, 2]), returned([2, 1, 2]))
    assert not policy.with_(unordered=True).outcomes_equal(returned([1, 1, 2]), returned([2, 1, 2]))


def test_exception_rules() -> None:
    assert DEFAULT_POLICY.outcomes_equal(raised("ValueError", "a"), raised("ValueError", "b"))
    assert not DEFAULT_POLICY.outcomes_equal(raised("ValueError"), raised("TypeError"))
    any_rule = DEFAULT_POLICY.with_(exceptions=ExceptionEquality.ANY)
    assert any_rule.outcomes_equal(raised("ValueError"), raised("TypeError"))
    strict = DEFAULT_POLICY.with_(exceptions="type-and-message")
    assert not strict.outcomes_equal(raised("ValueError", "a"), raised("ValueError", "b"))
    assert not DEFAULT_POLICY.outcomes_equal(raised("ValueError"), returned(None))


def test_mutation_stdout_and_custom_rules() -> None:
    sorted_in_place = returned(None, encode([[[1, 2]], {}]))
    copied = returned(None, encode([[[2, 1]], {}]))
    assert not DEFAULT_POLICY.outcomes_equal(sorted_in_place, copied)
    assert DEFAULT_POLICY.with_(compare_mutation=False).outcomes_equal(sorted_in_place, copied)
    loud = Outcome(kind=OutcomeKind.RETURNED, value=1, stdout="hi")
    quiet = Outcome(kind=OutcomeKind.RETURNED, value=1)
    assert DEFAULT_POLICY.outcomes_equal(loud, quiet)
    assert not DEFAULT_POLICY.with_(compare_stdout=True).outcomes_equal(loud, quiet)
    by_length = EqualityPolicy(compare=lambda a, b: len(a) == len(b))
    assert by_length.outcomes_equal(returned("abc"), returned("xyz"))


def test_partition_and_invalid_policy() -> None:
    outcomes = [returned(1), returned(2), returned(1.0), raised("KeyError")]
    assert DEFAULT_POLICY.partition(outcomes) == ((0, 2), (1,), (3,))
    with pytest.raises(InvalidArgument, match="rel_tol"):
        EqualityPolicy(rel_tol=-1)
    assert "exceptions=any" in EqualityPolicy(exceptions="any").describe()


@dataclasses.dataclass(frozen=True)
class RoundedNumbers(ValueRules):
    """A value rule that overrides one part: numbers equal when they round to the same integer."""

    name = "rounded"

    def numbers_equal(self, a: object, b: object, policy: EqualityPolicy) -> bool:
        return round(a) == round(b)  # type: ignore[call-overload]


def test_a_value_rule_subclass_changes_one_part_and_keeps_the_rest() -> None:
    policy = EqualityPolicy(values=RoundedNumbers())
    assert policy.describe() == "values=rounded"
    assert policy.outcomes_equal(returned(1.2), returned(0.9))
    # the override applies inside containers, and the other parts are still the default's
    assert policy.outcomes_equal(returned([1.2, {"a": 2.1}]), returned([0.8, {"a": 1.9}]))
    assert policy.outcomes_equal(returned({"a": 1, "b": 2.2}), returned({"b": 1.8, "a": 1}))
    assert not policy.outcomes_equal(returned([1, 2]), returned((1, 2)))
    assert policy.with_(list_equals_tuple=True).outcomes_equal(returned([1.1, 2]), returned((1, 2)))
    # and it decides the partition, with mutation compared through it too
    outcomes = [returned(1.1, encode([[0.9], {}])), returned(2), returned(0.9, encode([[1.2], {}]))]
    assert policy.partition(outcomes) == ((0, 2), (1,))
    assert policy == EqualityPolicy(values=RoundedNumbers()) and policy != DEFAULT_POLICY


def test_partition_takes_a_shared_outcome_object_without_comparing_unless_it_may_differ_from_itself() -> None:
    nan = returned(math.nan)
    shared = [nan, returned(1), nan, nan]
    assert DEFAULT_POLICY.partition(shared) == ((0, 2, 3), (1,))
    # NaN differs from itself here: the same object must still be compared, and stays apart
    assert DEFAULT_POLICY.with_(nan_equal=False).partition(shared) == ((0,), (1,), (2,), (3,))
    never_equal = EqualityPolicy(compare=lambda a, b: False)
    assert never_equal.partition(shared) == ((0,), (1,), (2,), (3,))


def test_ints_beyond_the_float_range_compare_exactly() -> None:
    assert not DEFAULT_POLICY.values_equal(10**400, 1.0)
    assert not DEFAULT_POLICY.values_equal(10**400, float("inf"))
    assert DEFAULT_POLICY.values_equal(2**53, float(2**53))


def test_a_default_repr_inside_an_opaque_value_carries_no_address_nor_the_implementations_module() -> None:
    """A ``datetime.time`` whose tzinfo has no repr of its own (real code: isodate's Utc) encodes the
    same in every process and for every implementation: the address and the module are no behaviour."""
    import datetime
    import types

    from divergent.values import register_home_module

    def utc_class(module: str) -> type:
        namespace = types.new_class("Utc", (datetime.tzinfo,), exec_body=lambda ns: ns.update(
            utcoffset=lambda self, dt: datetime.timedelta(0), __module__=module))
        return namespace

    register_home_module("impl_one")
    register_home_module("impl_two")
    first = encode(datetime.time(0, 0, tzinfo=utc_class("impl_one")()))
    second = encode(datetime.time(0, 0, tzinfo=utc_class("impl_two")()))
    assert first == second
    assert "0x" not in canonical_text(first) and "impl_one" not in canonical_text(first)
    assert "Utc object" in canonical_text(first)
    # another module's class keeps its name: only the implementations' own modules are dropped
    other = encode(datetime.time(0, 0, tzinfo=utc_class("elsewhere")()))
    assert "elsewhere.Utc" in canonical_text(other) and other != first
