"""Gen(d): the inputs an incoherence measurement runs a task's programs on.

The task's test inputs (from its asserts) are the seeds. Gen(d) is one input distribution per task
(the paper's eq. 5), and its estimators and bounds take the inputs ``x_1 .. x_n`` as independent
draws from it (Sec. 6.3, eqs. 9-10; Appendix B, Algorithms 1-2 and Theorems 4.2-4.3). So every
draw starts again from a seed: one of the task's test inputs, picked uniformly, whose arguments
each get a stack of basic type-aware mutations (Table 6, applied by
:class:`~divergent.engines.calls.mutators.Mutator`). A draw is never a mutant of an earlier draw.

Why not mutants of mutants (EvalPlus's growing seed pool, which Gen(d) used before): then draw
``k`` descends from about ``ln k`` earlier draws, so the inputs drift away from the tests as ``n``
grows and whatever one mutation put in (a 0 in a list, a negative int, a duplicate) is inherited by
its descendants and spreads through the pool. The draws are then neither independent nor alike,
and the error they measure is biased up: on MBPP, with the authors' own generator otherwise
unchanged, it adds 0.03 to every model's mean error (``docs/incoherence.md``).

Only the ground truth's source is read (for its signature and constants); nothing runs here.
"""

from __future__ import annotations

import copy
import enum
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from divergent.datasets import Task
from divergent.engines.base import CallContext
from divergent.engines.calls.mutation import MutationEngine
from divergent.engines.calls.mutators import TABLE6_OPERATORS, Mutator
from divergent.engines.calls.seeds import infer_annotation, parameter_values
from divergent.engines.calls.shapes import (
    NONE_TYPE,
    CannotGenerate,
    Shape,
    fits,
    minimal_value,
    runtime_shape,
    shape_of,
)
from divergent.engines.constants import Constants
from divergent.engines.settings import EngineSettings, MutationOperators
from divergent.errors import EngineCannotProceed, InvalidArgument
from divergent.preconditions import conforms
from divergent.programs import ParameterKind, PythonFunction, Signature
from divergent.records import Input

__all__ = ["GEN_D", "STACKED_MUTATIONS", "GenD", "InputMode", "TaskInputs", "generate_inputs"]


class InputMode(enum.StrEnum):
    #: n independent draws from Gen(d); repeats kept (the distribution does not depend on n)
    DRAWS = "draws"
    #: n distinct inputs (mutation goes on until it has found that many new ones)
    DISTINCT = "distinct"


#: names this Gen(d) among the runs a study stores: a run stored with another one (before this
#: version, mutants of earlier draws) can be shown but is not resumed with these inputs
GEN_D = "independent-draws"
#: how many basic mutations each argument of a draw gets, picked uniformly per argument. The paper
#: gives no number; the authors' artifact stacks 1, 10 or 30, and so does this Gen(d): a single
#: mutation keeps every input next to a test (on MBPP that measures 0.02 less error than the paper)
STACKED_MUTATIONS = (1, 10, 30)
#: Table 6's operators that change the value at one position. A mutation first picks the position
#: (the argument itself or any element, recursively, uniformly), so changing an element is the
#: element's own mutation, not its container's
_AT_A_POSITION = TABLE6_OPERATORS - {"mutate-element", "mutate-key", "mutate-value"}
#: kinds of values no Table 6 operator changes in place (a fixed-length tuple keeps its length;
#: its items are positions of their own)
_NO_OPERATOR = frozenset({"none", "tuple", "opaque"})
#: draws in a row that do not fit the signature before Gen(d) gives up
_MAX_REJECTED = 3000


@dataclass(frozen=True)
class TaskInputs:
    inputs: tuple[Input, ...]
    #: inputs generated before the validity filter
    generated: int
    note: str = ""


def generate_inputs(
    task: Task, reference: PythonFunction | None, n: int, seed: int, mode: InputMode = InputMode.DRAWS
) -> TaskInputs:
    """Gen(d): the task's test inputs, then draws of Gen(d), up to ``n`` inputs.

    ``mode`` DRAWS keeps repeated draws; DISTINCT asks for ``n`` different inputs (mutants of
    mutants, as many as it takes), which for small input spaces means inputs far from the tests."""
    signature = reference.signature if reference is not None else None
    if signature is None:
        raise InvalidArgument(f"{task.task_id}: no ground truth to read the signature from")
    seeds = [s for s in task.seed_inputs(signature) if conforms(s, signature)]
    if mode is InputMode.DRAWS:
        drawn = list(seeds[:n])
        note = ""
        try:
            drawn += GenD(seeds, signature, seed).draw(n - len(drawn))
        except EngineCannotProceed as stop:
            note = f"input generation stopped early: {stop}"
        return TaskInputs(inputs=tuple(drawn), generated=len(drawn), note=note)
    context = CallContext(
        implementations=(reference,),
        signature=signature,
        seeds=tuple(seeds),
        constants=Constants.harvest([reference.source]),
        seed=seed,
        # Table 6's basic mutations only, not the boundary values and harvested constants `check`
        # uses to hunt rare differences (those would measure another input distribution).
        settings=EngineSettings(mutation_operators=MutationOperators.TABLE6),
    )
    inputs: dict[str, Input] = {s.key: s for s in seeds[:n]}
    note = ""
    try:
        engine = MutationEngine(context)
        fruitless = 0
        while len(inputs) < n and fruitless < 20:
            before = len(inputs)
            for item in engine.propose(min(256, 2 * (n - len(inputs)))):
                if conforms(item, signature):
                    inputs.setdefault(item.key, item)
                    if len(inputs) >= n:
                        break
            fruitless = fruitless + 1 if len(inputs) == before else 0
    except EngineCannotProceed as stop:
        note = f"input generation stopped early: {stop}"
    chosen = tuple(list(inputs.values())[:n])
    return TaskInputs(inputs=chosen, generated=len(chosen), note=note)


class GenD:
    """Independent draws of Gen(d) for one signature, reproducible from ``seed``.

    A draw: a parent picked uniformly among ``seeds`` (without seeds, the simplest call the
    annotations allow); every argument mutated ``k`` times, ``k`` picked from
    :data:`STACKED_MUTATIONS`, each time at a position picked uniformly among the argument's
    positions (the value, its elements, theirs...) by one Table 6 operator that keeps the type the
    parameter's annotation, or else its seed values, show. A draw that still does not fit the
    signature is drawn again."""

    def __init__(self, seeds: Sequence[Input], signature: Signature, seed: int) -> None:
        self._signature = signature
        self._rng = random.Random(f"{seed}:gen-d")
        self._mutator = Mutator(self._rng, Constants(), Counter())
        self._mutator.restrict(_AT_A_POSITION)
        values = parameter_values(seeds, signature)
        self._annotations: dict[str, Any] = {}
        for parameter in signature.parameters:
            if parameter.annotated:
                # An annotation written as `None` may resolve to None itself: it means NoneType.
                self._annotations[parameter.name] = (
                    NONE_TYPE if parameter.annotation is None else parameter.annotation
                )
            else:
                self._annotations[parameter.name] = infer_annotation(values[parameter.name])
        self._parents = list(seeds) or [self._simplest_call()]
        self._positions = _Positions()

    def draw(self, n: int) -> list[Input]:
        drawn: list[Input] = []
        rejected = 0
        while len(drawn) < n:
            child = self._child()
            if conforms(child, self._signature):
                drawn.append(child)
                rejected = 0
                continue
            rejected += 1
            if rejected >= _MAX_REJECTED:
                raise EngineCannotProceed(
                    "exhausted", f"{_MAX_REJECTED} draws in a row did not fit the signature"
                )
        return drawn

    def _child(self) -> Input:
        parent = self._rng.choice(self._parents)
        args = tuple(
            self._mutated(value, self._annotation_at(index)) for index, value in enumerate(parent.args)
        )
        kwargs = {
            name: self._mutated(value, self._annotation_of(name)) for name, value in parent.kwargs.items()
        }
        return Input(args, kwargs, how_generated="gen-d")

    def _mutated(self, value: Any, annotation: Any) -> Any:
        value = copy.deepcopy(value)  # the parent stays as it is
        for _ in range(self._rng.choice(STACKED_MUTATIONS)):
            positions = self._positions.of(value, annotation)
            if not positions:
                break
            path, at = self._rng.choice(positions)
            value = _changed(value, path, lambda node, at=at: self._mutator.mutate(node, at))
        return value

    def _annotation_at(self, index: int) -> Any:
        positional = self._signature.positional
        if index < len(positional):
            return self._annotations[positional[index].name]
        rest = next((p for p in self._signature.parameters if p.kind is ParameterKind.VAR_POSITIONAL), None)
        return self._annotations[rest.name] if rest is not None else Any

    def _annotation_of(self, name: str) -> Any:
        if name in self._annotations:
            return self._annotations[name]
        rest = next((p for p in self._signature.parameters if p.kind is ParameterKind.VAR_KEYWORD), None)
        return self._annotations[rest.name] if rest is not None else Any

    def _simplest_call(self) -> Input:
        """Without seeds: the simplest value of each required parameter's annotation."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for parameter in self._signature.required:
            if not parameter.annotated:
                raise EngineCannotProceed(
                    "unsupported",
                    f"parameter {parameter.name} has no annotation and no seeds that fit the signature",
                )
            try:
                value = minimal_value(self._annotations[parameter.name])
            except CannotGenerate as error:
                raise EngineCannotProceed(
                    "unsupported", f"parameter {parameter.name}: {error} without seed inputs"
                ) from None
            if parameter.kind is ParameterKind.KEYWORD_ONLY:
                kwargs[parameter.name] = value
            else:
                args.append(value)
        return Input(tuple(args), kwargs, how_generated="gen-d")


# -- positions in a value -------------------------------------------------------------------------
# A path leads from an argument to one of its positions: ("item", i) in a list or tuple, ("member",
# m) in a set, ("key", k) and ("value", k) in a dict.


class _Positions:
    """The positions of values, with the annotation each has there. Every mutation walks the whole
    value, so what an annotation says of a value is memoized: per annotation object and the value's
    type (and a tuple's length), unless a ``Literal`` makes it depend on the value itself."""

    def __init__(self) -> None:
        #: id(annotation) -> (the annotation, kept alive so that the id stays its own; its shape;
        #: its members' (annotation, shape) when it is a union; whether a Literal is involved)
        self._known: dict[int, tuple[Any, Shape, tuple[tuple[Any, Shape], ...], bool]] = {}
        self._resolved: dict[tuple[int, type, int], Shape] = {}

    def _of(self, annotation: Any) -> tuple[Any, Shape, tuple[tuple[Any, Shape], ...], bool]:
        known = self._known.get(id(annotation))
        if known is None:
            shape = shape_of(annotation)
            members = tuple((m, shape_of(m)) for m in shape.args) if shape.family == "union" else ()
            literal = shape.family == "literal" or any(s.family == "literal" for _, s in members)
            known = self._known[id(annotation)] = (annotation, shape, members, literal)
        return known

    def shape(self, value: Any, annotation: Any) -> Shape:
        """The shape ``value`` is mutated as: its annotation's (a union's member that fits it, of
        the value's own kind first), else its runtime type's."""
        kind = type(value)
        key = (id(annotation), kind, len(value) if kind is tuple else -1)
        resolved = self._resolved.get(key)
        if resolved is not None:
            return resolved
        _, shape, members, literal = self._of(annotation)
        resolved = None
        if members:
            fitting = [(m, member_shape) for m, member_shape in members if fits(value, member_shape)]
            if fitting:
                family = runtime_shape(value).family
                chosen = next(
                    (m for m, member_shape in fitting if member_shape.family == family), fitting[0][0]
                )
                resolved = self.shape(value, chosen)
        if resolved is None:
            resolved = runtime_shape(value) if shape.family == "any" or not fits(value, shape) else shape
        if not literal:
            self._resolved[key] = resolved
        return resolved

    def of(self, value: Any, annotation: Any) -> list[tuple[tuple, Any]]:
        """Every position of ``value`` an operator can change, with the annotation it has there."""
        found: list[tuple[tuple, Any]] = []
        self._walk(value, annotation, (), found)
        return found

    def _walk(self, value: Any, annotation: Any, path: tuple, found: list) -> None:
        shape = self.shape(value, annotation)
        family = shape.family
        if family not in _NO_OPERATOR:
            found.append((path, annotation))
        if family in ("list", "tuple-var"):
            for index, item in enumerate(value):
                self._walk(item, shape.args[0], (*path, ("item", index)), found)
        elif family == "tuple":
            for index, item in enumerate(value):
                self._walk(item, shape.args[index], (*path, ("item", index)), found)
        elif family in ("set", "frozenset"):
            for member in sorted(value, key=repr):  # set order depends on hashing; draws must not
                self._walk(member, shape.args[0], (*path, ("member", member)), found)
        elif family == "dict":
            for key, item in value.items():
                self._walk(key, shape.args[0], (*path, ("key", key)), found)
                self._walk(item, shape.args[1], (*path, ("value", key)), found)


def _changed(value: Any, path: tuple, change: Any) -> Any:
    """``value`` with the node at ``path`` replaced by ``change(node)`` (containers on the way copied)."""
    if not path:
        return change(value)
    (step, where), rest = path[0], path[1:]
    if step == "item":
        items = list(value)
        items[where] = _changed(items[where], rest, change)
        return items if type(value) is list else tuple(items)
    if step == "member":
        try:
            members = set(value) - {where}
            members.add(_changed(where, rest, change))
        except TypeError:  # an unhashable member
            return value
        return members if type(value) is set else frozenset(members)
    if step == "key":
        try:
            renamed = _changed(where, rest, change)
            # rebuilt in order, so the renamed entry keeps its place
            return {(renamed if key == where else key): item for key, item in value.items()}
        except TypeError:  # an unhashable key
            return value
    result = dict(value)
    result[where] = _changed(value[where], rest, change)
    return result
