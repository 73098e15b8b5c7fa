"""The generating engines (seeds, mutation, hypothesis) and the preconditions they respect."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import typing
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from divergent.engines.base import CallContext, Engine
from divergent.engines.calls.hypothesis import HypothesisEngine, storage_outside_working_directory
from divergent.engines.calls.mutation import MutationEngine
from divergent.engines.calls.seeds import SeedEngine, infer_annotation
from divergent.engines.constants import Constants
from divergent.engines.settings import EngineSettings, MutationOperators
from divergent.errors import EngineCannotProceed, InvalidArgument
from divergent.kinds.functions import PYTHON_FUNCTIONS
from divergent.preconditions import bind_arguments, conforms, make_requirement, nonconformity
from divergent.programs import Parameter, ParameterKind, PythonFunction, Signature
from divergent.records import Input, Observation, Outcome, OutcomeKind

SOURCE = 'def f(x):\n    if x == 7919:\n        return "magic-word"\n    return x\n'

#: annotation forms an engine must respect, as resolved typing objects
ANNOTATIONS: list[Any] = [
    int,
    float,
    bool,
    str,
    bytes,
    complex,
    list[int],
    typing.List[int],  # noqa: UP006 - the typing alias is a form of its own
    list[list[int]],
    dict[str, float],
    typing.Dict[str, list[int]],  # noqa: UP006
    tuple[int, ...],
    tuple[int, str],
    set[int],
    frozenset[str],
    int | None,
    typing.Optional[str],  # noqa: UP045
    typing.Union[int, str],  # noqa: UP007
    typing.Literal[1, 2, "x"],
    typing.Any,
    typing.Sequence[int],
    typing.Mapping[str, int],
    list[float | None],
]

TABLE6 = EngineSettings(mutation_operators=MutationOperators.TABLE6)


def param(name: str, annotation: Any = None, **options: Any) -> Parameter:
    source = None if annotation is None else getattr(annotation, "__name__", repr(annotation))
    return Parameter(name=name, annotation_source=source, annotation=annotation, **options)


def make_context(
    parameters: Sequence[Parameter],
    *,
    seeds: Sequence[Input] = (),
    source: str = SOURCE,
    seed: int = 0,
    require: Callable[[Input], bool] | None = None,
) -> CallContext:
    signature = Signature(parameters=tuple(parameters))
    implementation = PythonFunction(label="a.py:f", entry_point="f", source=source, signature=signature)
    return CallContext(
        implementations=(implementation,),
        signature=signature,
        seeds=tuple(seeds),
        constants=Constants.harvest([source]),
        seed=seed,
        require=require,
    )


def draw(engine: Engine, count: int, batch: int = 100) -> list[Input]:
    """Up to ``count`` proposals, in batches, until the engine stops."""
    found: list[Input] = []
    try:
        while len(found) < count:
            found.extend(engine.propose(min(batch, count - len(found))))
    except EngineCannotProceed as stop:
        assert stop.reason == "exhausted", stop
    return found


def returned(value: Any) -> Outcome:
    return Outcome(kind=OutcomeKind.RETURNED, value=value)


# ---------------------------------------------------------------------------------------------
# preconditions.conforms


@pytest.mark.parametrize(
    ("annotation", "value", "expected"),
    [
        (int, 3, True),
        (int, True, False),  # bool is not an int here
        (int, 3.0, False),
        (float, 1.5, True),
        (float, 2, True),  # PEP 484 numeric tower
        (float, False, False),
        (complex, 1, True),
        (bool, True, True),
        (bool, 1, False),
        (int | bool, True, True),
        (list[int], [1, 2, 3], True),
        (list[int], [1, 2, True], False),  # every item is checked, not just the first
        (list[list[int]], [[1], [2, "x"]], False),
        (list[list[int]], [[1], []], True),
        (typing.List[int], [1], True),  # noqa: UP006
        (dict[str, float], {"a": 1, "b": 2.5}, True),
        (dict[str, float], {"a": True}, False),
        (int | None, None, True),
        (typing.Optional[int], True, False),  # noqa: UP045
        (tuple[int, ...], (), True),
        (tuple[int, ...], (1, 2, 3), True),
        (tuple[int, ...], (1, "2"), False),
        (tuple[int, str], (1, "a"), True),
        (tuple[int, str], (1, "a", 2), False),
        (typing.Literal[1, 2], 1, True),
        (typing.Literal[1, 2], True, False),
        (typing.Any, object(), True),
        (set[int], {1, 2}, True),
        (set[int], [1, 2], False),
        (typing.Annotated[int, "positive"], False, False),
    ],
)
def test_conforms_checks_the_annotation(annotation: Any, value: Any, expected: bool) -> None:
    signature = Signature(parameters=(param("x", annotation),))
    assert conforms(Input(args=(value,)), signature) is expected


def test_conforms_checks_arity() -> None:
    signature = Signature(
        parameters=(
            param("a", int, kind=ParameterKind.POSITIONAL_ONLY),
            param("b", str),
            param("c", float, has_default=True, default_source="1.0"),
            param("d", bool, kind=ParameterKind.KEYWORD_ONLY),
        )
    )
    assert conforms(Input(args=(1, "s"), kwargs={"d": True}), signature)
    assert conforms(Input(args=(1,), kwargs={"b": "s", "c": 2.0, "d": False}), signature)
    assert not conforms(Input(args=(1, "s")), signature)  # keyword-only d is required
    assert not conforms(Input(args=(1, "s", 2.0, True), kwargs={"d": True}), signature)  # too many
    assert not conforms(Input(args=(1, "s"), kwargs={"d": True, "zzz": 1}), signature)  # unknown keyword
    assert not conforms(Input(args=("s",), kwargs={"a": 1, "d": True}), signature)  # a is positional-only
    assert not conforms(Input(args=(1, "s"), kwargs={"b": "t", "d": True}), signature)  # b twice
    assert nonconformity(Input(args=(True, "s"), kwargs={"d": True}), signature) == (
        "argument a: bool is not an instance of int"
    )


def test_conforms_checks_star_args_items_and_unannotated_parameters() -> None:
    signature = Signature(
        parameters=(
            param("x"),
            param("rest", int, kind=ParameterKind.VAR_POSITIONAL),
            param("options", str, kind=ParameterKind.VAR_KEYWORD),
        )
    )
    assert conforms(Input(args=(object(), 1, 2), kwargs={"k": "v"}), signature)
    assert not conforms(Input(args=(None, 1, False)), signature)
    assert not conforms(Input(args=(None,), kwargs={"k": 1}), signature)
    assert bind_arguments(Input(args=(0, 1, 2), kwargs={"k": "v"}), signature) == {
        "x": 0,
        "rest": (1, 2),
        "options": {"k": "v"},
    }


# ---------------------------------------------------------------------------------------------
# preconditions.make_requirement


def test_requirement_binds_positional_and_keyword_arguments() -> None:
    signature = Signature(parameters=(param("n", int), param("m", int, has_default=True, default_source="0")))
    require = make_requirement("n >= 0 and n % 2 == 0", signature)
    assert require(Input(args=(4,)))
    assert not require(Input(args=(3,)))
    assert not require(Input(args=(-2,)))
    assert require(Input(kwargs={"n": 2}))
    uses_default = make_requirement("m < n", signature)
    assert uses_default(Input(args=(5, 1)))
    assert not uses_default(Input(args=(5,)))  # m's default is unknown: not met


def test_requirement_sees_star_args_and_star_kwargs() -> None:
    signature = Signature(
        parameters=(
            param("first", int),
            param("rest", int, kind=ParameterKind.VAR_POSITIONAL),
            param("options", kind=ParameterKind.VAR_KEYWORD),
        )
    )
    require = make_requirement("len(rest) < 2 and 'debug' not in options", signature)
    assert require(Input(args=(1,)))
    assert require(Input(args=(1, 2)))
    assert not require(Input(args=(1, 2, 3)))
    assert not require(Input(args=(1,), kwargs={"debug": True}))


def test_requirement_that_raises_is_not_met() -> None:
    signature = Signature(parameters=(param("xs", list[int]),))
    require = make_requirement("xs[0] > 0 and all(x < 10 for x in xs)", signature)
    assert require(Input(args=([1, 2],)))
    assert not require(Input(args=([],)))  # IndexError
    assert not require(Input(args=([1, 20],)))


def test_requirement_that_does_not_compile_names_the_expression() -> None:
    signature = Signature(parameters=(param("n", int),))
    with pytest.raises(InvalidArgument) as raised:
        make_requirement("n >=", signature)
    assert "'n >='" in str(raised.value)
    assert "syntax" in str(raised.value)
    with pytest.raises(InvalidArgument, match="unknown name 'k'"):
        make_requirement("k > 0", signature)


# ---------------------------------------------------------------------------------------------
# every engine respects the preconditions


@pytest.mark.parametrize("annotation", ANNOTATIONS, ids=repr)
@pytest.mark.parametrize(("engine_type", "count"), [(MutationEngine, 200), (HypothesisEngine, 30)])
def test_engines_propose_only_conforming_inputs(
    engine_type: type[Engine], count: int, annotation: Any
) -> None:
    context = make_context([param("x", annotation)])
    proposals = draw(engine_type(context), count)
    assert proposals
    assert all(conforms(p, context.signature) for p in proposals), [
        p for p in proposals if not conforms(p, context.signature)
    ][:3]
    assert len({p.key for p in proposals}) == len(proposals)
    assert {p.how_generated for p in proposals} == {engine_type.name}


@pytest.mark.parametrize(("engine_type", "count"), [(MutationEngine, 600), (HypothesisEngine, 100)])
def test_engines_respect_every_kind_of_parameter(engine_type: type[Engine], count: int) -> None:
    parameters = [
        param("a", int, kind=ParameterKind.POSITIONAL_ONLY),
        param("b", str),
        param("c", float, has_default=True, default_source="1.0"),
        param("rest", int, kind=ParameterKind.VAR_POSITIONAL),
        param("d", bool, kind=ParameterKind.KEYWORD_ONLY),
        param(
            "e", list[int] | None, kind=ParameterKind.KEYWORD_ONLY, has_default=True, default_source="None"
        ),
        param("options", kind=ParameterKind.VAR_KEYWORD),
    ]
    context = make_context(parameters)
    proposals = draw(engine_type(context), count)
    assert all(conforms(p, context.signature) for p in proposals)
    # Optional arguments and *args are exercised too, not only the required ones.
    assert any("c" in p.kwargs or len(p.args) > 2 for p in proposals)
    assert any("e" in p.kwargs for p in proposals)


def test_seed_engine_proposes_the_given_seeds_that_bind_in_order_then_stops() -> None:
    # the given seeds are the task's own inputs: an annotation (int, where a seed is True or "x") is
    # no reason to drop them; a seed that cannot be called (two arguments for one parameter) is
    seeds = [Input(args=(3,)), Input(args=(True,)), Input(args=("x",)), Input(args=(1, 2)), Input(args=(5,)),
             Input(args=(3,))]
    engine = SeedEngine(make_context([param("x", int)], seeds=seeds))
    assert [p.args for p in engine.propose(1)] == [(3,)]
    assert [p.args for p in engine.propose(10)] == [(True,), ("x",), (5,)]
    with pytest.raises(EngineCannotProceed) as stopped:
        engine.propose(10)
    assert stopped.value.reason == "exhausted"


def test_registry_names_the_engine_classes() -> None:
    assert PYTHON_FUNCTIONS.engine_class("seeds") is SeedEngine
    assert PYTHON_FUNCTIONS.engine_class("mutation") is MutationEngine
    assert PYTHON_FUNCTIONS.engine_class("hypothesis") is HypothesisEngine


# ---------------------------------------------------------------------------------------------
# --require


@pytest.mark.parametrize(
    ("engine_type", "count"), [(SeedEngine, 10), (MutationEngine, 300), (HypothesisEngine, 60)]
)
def test_engines_respect_the_requirement(engine_type: type[Engine], count: int) -> None:
    parameters = [param("n", int)]
    require = make_requirement("n >= 0 and n % 2 == 0", Signature(parameters=tuple(parameters)))
    seeds = [Input(args=(value,)) for value in (-4, 3, 8, 10, -1)]
    proposals = draw(engine_type(make_context(parameters, seeds=seeds, require=require)), count)
    assert proposals
    assert all(p.args[0] >= 0 and p.args[0] % 2 == 0 for p in proposals)
    if engine_type is SeedEngine:
        assert [p.args for p in proposals] == [(8,), (10,)]


def test_mutation_gives_up_when_the_requirement_is_never_met() -> None:
    parameters = [param("n", int)]
    never = make_requirement("n != n", Signature(parameters=tuple(parameters)))
    with pytest.raises(EngineCannotProceed) as stopped:
        MutationEngine(make_context(parameters, require=never)).propose(10)
    assert stopped.value.reason == "exhausted"


# ---------------------------------------------------------------------------------------------
# determinism


@pytest.mark.parametrize("engine_type", [MutationEngine, HypothesisEngine])
def test_engines_are_deterministic_for_a_seed(engine_type: type[Engine]) -> None:
    parameters = [param("xs", list[int]), param("s", str)]
    seeds = [Input(args=([1, 2, 3], "abc"))]

    def run(seed: int) -> list[str]:
        engine = engine_type(make_context(parameters, seeds=seeds, seed=seed))
        return [p.key for p in engine.propose(30) + engine.propose(30)]

    first = run(seed=1)
    assert first == run(seed=1)
    assert first != run(seed=2)


# ---------------------------------------------------------------------------------------------
# mutation


#: the operators of DiffTrust's Table 6, as "family:operator"
TABLE_6 = [
    "int:plus-minus-one",
    "int:plus-minus-ten",
    "int:random-number",
    "float:plus-minus-one",
    "float:plus-minus-ten",
    "float:random-number",
    "bool:flip-bool",
    "str:insert-char",
    "str:delete-char",
    "str:replace-char",
    "str:truncate-substring",
    "str:extend-substring",
    "str:duplicate-substring",
    "optional:to-none",
    "list:insert-random-element",
    "list:insert-dummy-element",
    "list:swap-elements",
    "set:insert-random-element",
    "set:insert-dummy-element",
    "dict:duplicate-entry",
    "dict:insert-entry",
    "dict:delete-entry",
    "tuple:insert-random-element",
    "tuple:duplicate-element",
    "tuple:delete-element",
]


def test_mutation_covers_every_table_6_operator() -> None:
    annotations = {
        "i": int,
        "f": float,
        "b": bool,
        "s": str,
        "xs": list[int],
        "members": set[int],
        "table": dict[str, int],
        "record": tuple[int, ...],
        "maybe": int | None,
    }
    parameters = [param(name, annotation) for name, annotation in annotations.items()]
    seed = Input(args=(5, 2.5, True, "hello", [1, 2, 3], {1, 2}, {"a": 1, "b": 2}, (1, 2), 7))
    engine = MutationEngine(make_context(parameters, seeds=[seed]))
    proposals = draw(engine, 1000, batch=250)
    assert len(proposals) == 1000
    missing = [operator for operator in TABLE_6 if engine.operator_counts[operator] == 0]
    assert not missing
    assert any(p.args[8] is None for p in proposals)


def test_mutation_effects_on_strings() -> None:
    engine = MutationEngine(make_context([param("s", str)], seeds=[Input(args=("abcdef",))]))
    values = {p.args[0] for p in draw(engine, 1500, batch=500)}
    assert "" in values
    assert any(len(v) == 7 and v.startswith("abc") for v in values)  # one character inserted
    assert any(len(v) == 5 and set(v) <= set("abcdef") for v in values)  # one deleted
    assert "ABCDEF" in values  # case swapped
    assert any(any(ch in v for ch in "ßİﬁΣ") for v in values)  # tricky Unicode


@pytest.mark.parametrize("engine_type", [MutationEngine, HypothesisEngine])
def test_a_restarted_engine_walks_elsewhere_and_the_same_way_for_a_seed(engine_type: type[Engine]) -> None:
    context = make_context([param("x", int), param("s", str)], seeds=[Input(args=(3, "ab"))])
    first = [p.args for p in draw(engine_type(context), 200)]
    restarted = dataclasses.replace(context, restart=1)
    again = [p.args for p in draw(engine_type(restarted), 200)]
    assert again != first  # a fresh random stream
    assert again == [p.args for p in draw(engine_type(restarted), 200)]  # reproducible for the seed


@pytest.mark.parametrize("engine_type", [MutationEngine, HypothesisEngine])
def test_harvested_constants_appear_early(engine_type: type[Engine]) -> None:
    ints = draw(engine_type(make_context([param("x", int)])), 150)
    assert any(p.args[0] == 7919 for p in ints)
    strings = draw(engine_type(make_context([param("x", str)])), 150)
    assert any(p.args[0] == "magic-word" for p in strings)


def test_mutation_starts_from_minimal_values_without_seeds() -> None:
    parameters = [param("n", int), param("xs", list[str]), param("pair", tuple[int, str])]
    first = MutationEngine(make_context(parameters)).propose(1)
    assert first == [Input(args=(0, [], (0, "")), how_generated="mutation")]


def test_mutation_grows_its_pool_from_feedback() -> None:
    parameters = [param("xs", list[int])]
    engine = MutationEngine(make_context(parameters))
    engine.propose(20)
    splitting = Input(args=([424242, 17],), how_generated="hypothesis")
    engine.observe([Observation(input=splitting, outcomes=(returned(1), returned(2)), classes=((0,), (1,)))])
    proposals = draw(engine, 300)
    assert splitting.key not in {p.key for p in proposals}  # an input already run is not proposed again
    assert sum(424242 in p.args[0] for p in proposals) > 30


@pytest.mark.parametrize("annotation", [bool, typing.Literal["a", "b"], tuple[()]], ids=repr)
def test_mutation_stops_when_a_small_space_is_used_up(annotation: Any) -> None:
    engine = MutationEngine(make_context([param("x", annotation)]))
    assert len(draw(engine, 100)) <= 2
    with pytest.raises(EngineCannotProceed) as stopped:
        engine.propose(10)
    assert stopped.value.reason == "exhausted"


# ---------------------------------------------------------------------------------------------
# unannotated parameters


def test_infer_annotation_reads_the_seeds_shapes() -> None:
    assert infer_annotation([[1, 2], []]) == list[int]
    assert infer_annotation([1, 2.5]) is float
    assert infer_annotation([(1, "a"), (2, "b")]) == tuple[int, str]
    assert infer_annotation([{"a": [1]}]) == dict[str, list[int]]
    assert infer_annotation([None, 3]) == typing.Optional[int]  # noqa: UP045
    assert infer_annotation([]) is typing.Any


@pytest.mark.parametrize("engine_type", [MutationEngine, HypothesisEngine])
def test_unannotated_parameters_follow_the_seeds(engine_type: type[Engine]) -> None:
    seeds = [Input(args=([3, 1, 2], "k")), Input(args=([], "key"))]
    proposals = draw(engine_type(make_context([param("xs"), param("name")], seeds=seeds)), 100)
    assert len(proposals) == 100
    assert all(isinstance(p.args[0], list) for p in proposals)
    assert all(isinstance(item, int) for p in proposals for item in p.args[0])


@pytest.mark.parametrize("engine_type", [MutationEngine, HypothesisEngine])
def test_unannotated_parameters_without_seeds_are_unsupported(engine_type: type[Engine]) -> None:
    engine = engine_type(make_context([param("n", int), param("x")]))
    with pytest.raises(EngineCannotProceed) as stopped:
        engine.propose(10)
    assert stopped.value.reason == "unsupported"
    assert "x" in stopped.value.message


# ---------------------------------------------------------------------------------------------
# hypothesis


def test_hypothesis_refuses_values_the_sandbox_cannot_receive() -> None:
    engine = HypothesisEngine(make_context([param("callback", typing.Callable[[int], int])]))
    with pytest.raises(EngineCannotProceed) as stopped:
        engine.propose(10)
    assert stopped.value.reason == "unsupported"


def test_hypothesis_builds_hashable_items_for_bare_sets_and_dicts() -> None:
    proposals = draw(HypothesisEngine(make_context([param("s", set), param("d", dict)])), 30)
    assert len(proposals) == 30


def test_hypothesis_rounds_keep_finding_new_inputs() -> None:
    engine = HypothesisEngine(make_context([param("s", str)]))
    proposals = draw(engine, 200, batch=25)
    assert len(proposals) == 200  # later rounds are not just the simplest examples again
    assert sum(p.args[0] == "" for p in proposals) == 1


def test_hypothesis_storage_is_kept_out_of_the_working_directory(tmp_path: Any) -> None:
    from hypothesis.configuration import storage_directory

    before = storage_directory(intent_to_write=False).home_directory
    with storage_outside_working_directory():
        during = storage_directory(intent_to_write=False).home_directory
    assert storage_directory(intent_to_write=False).home_directory == before
    assert during != before
    assert ".hypothesis" not in during.parts


def test_mutation_can_be_restricted_to_table_6() -> None:
    from dataclasses import replace

    from divergent.engines.calls.mutators import TABLE6_OPERATORS

    context = make_context([param("n", int), param("s", str), param("xs", list[int])])
    context = replace(context, seeds=(Input(args=(5, "abc", [1, 2]), how_generated="seeds"),),
                      settings=TABLE6)
    engine = MutationEngine(context)
    draw(engine, 300)
    used = {name.split(":", 1)[1] for name in engine.operator_counts}
    assert used and used <= TABLE6_OPERATORS


_DRAW_TEXT = (
    "from hypothesis import strategies as st\n"
    "from divergent.grammars.drawing import draw\n"
    "print(len(draw(st.text(min_size=1), 5, seed=1)))\n"
)


def _draw_text_in_a_fresh_process(cache: Any) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env["XDG_CACHE_HOME"] = str(cache)
    return subprocess.run([sys.executable, "-c", _DRAW_TEXT], env=env, capture_output=True, text=True, timeout=120)


def test_hypothesis_keeps_its_unicode_table_in_divergents_cache_between_processes(tmp_path: Any) -> None:
    """The table of Unicode categories is built once, then read back by the next process (it cost
    every check 0.1-0.35 s when each process had a fresh directory)."""
    first = _draw_text_in_a_fresh_process(tmp_path)
    assert first.returncode == 0 and first.stdout.strip() == "5", first.stderr
    tables = list((tmp_path / "divergent" / "hypothesis").rglob("charmap.json.gz"))
    assert len(tables) == 1
    written = tables[0].stat().st_mtime_ns
    second = _draw_text_in_a_fresh_process(tmp_path)
    assert second.returncode == 0 and second.stdout.strip() == "5", second.stderr
    assert tables[0].stat().st_mtime_ns == written  # read, not rebuilt
    assert not (tmp_path / ".hypothesis").exists()


def test_hypothesis_runs_with_a_scratch_home_when_the_cache_cannot_be_created(tmp_path: Any) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    done = _draw_text_in_a_fresh_process(blocked)
    assert done.returncode == 0 and done.stdout.strip() == "5", done.stderr
