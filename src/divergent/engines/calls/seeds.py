"""The seed engine, and what the other engines learn from seeds.

:class:`SeedEngine` proposes the context's seed inputs (from files, doctests, asserts, ``--seeds``)
in order, skipping those that break the preconditions, then the calls shaped by the code's
structure (:func:`~divergent.engines.calls.shaped.shaped_calls`: the seeds with one argument
replaced by a value built from a regex, a date format, a literal or a grammar the code uses), then
stops as "exhausted".

:func:`infer_annotation` reads the shape of an unannotated parameter from the values the seeds
give it (``[1, 2]`` and ``[]`` → ``list[int]``), so generators can follow it.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Sequence
from typing import Any

from divergent import preconditions
from divergent.engines.base import CallContext, Engine
from divergent.errors import EngineCannotProceed
from divergent.programs import ParameterKind, Signature
from divergent.records import AnyInput, Input

__all__ = ["SeedEngine", "infer_annotation", "parameter_values", "satisfies_requirement"]

#: beyond this many distinct shapes a union says little: fall back to Any
_MAX_UNION_MEMBERS = 4
_SCALARS = (bool, int, float, complex, str, bytes, bytearray, type(None))


def satisfies_requirement(context: CallContext, input: Input) -> bool:
    """The context's user precondition holds for ``input`` (a predicate that raises does not hold)."""
    if context.require is None:
        return True
    try:
        return bool(context.require(input))
    except Exception:  # noqa: BLE001 - a predicate that fails is not met
        return False


def parameter_values(inputs: Iterable[Input], signature: Signature) -> dict[str, list[Any]]:
    """The values each parameter takes across ``inputs`` (``*args`` items and ``**kwargs`` values
    are listed one by one, as their annotations describe single items)."""
    values: dict[str, list[Any]] = {p.name: [] for p in signature.parameters}
    kinds = {p.name: p.kind for p in signature.parameters}
    for input in inputs:
        binding = preconditions.bind_arguments(input, signature)
        if binding is None:
            continue
        for name, value in binding.items():
            if kinds[name] is ParameterKind.VAR_POSITIONAL:
                values[name].extend(value)
            elif kinds[name] is ParameterKind.VAR_KEYWORD:
                values[name].extend(value.values())
            else:
                values[name].append(value)
    return values


def infer_annotation(values: Sequence[Any]) -> Any:
    """An annotation describing ``values`` (builtins and containers of them, recursively).

    No values → ``Any``; mixed kinds → a union (``Any`` past a few members); values of other
    classes → their class (a generator that cannot build it reuses the values themselves).
    """
    if not values:
        return Any
    members: dict[Any, None] = {}
    by_kind: dict[type, list[Any]] = {}
    for value in values:
        by_kind.setdefault(type(value), []).append(value)
    for kind, same in by_kind.items():
        members[_infer_one_kind(kind, same)] = None
    # int and float together read as float (the numeric tower accepts the ints).
    if int in members and float in members:
        del members[int]
    if len(members) == 1:
        return next(iter(members))
    if len(members) > _MAX_UNION_MEMBERS or Any in members:
        return Any
    return typing.Union[tuple(members)]  # noqa: UP007 - built from a tuple at run time


def _infer_one_kind(kind: type, values: list[Any]) -> Any:
    if kind in _SCALARS:
        return kind
    if kind is list:
        return list[infer_annotation([item for value in values for item in value])]
    if kind in (set, frozenset):
        return kind[infer_annotation([item for value in values for item in value])]
    if kind is dict:
        keys = infer_annotation([key for value in values for key in value])
        items = infer_annotation([item for value in values for item in value.values()])
        return dict[keys, items]
    if kind is tuple:
        lengths = {len(value) for value in values}
        if len(lengths) == 1 and 0 < (length := lengths.pop()) <= 8:
            # Every seed has the same length: a record, position by position.
            return tuple[tuple(infer_annotation([value[i] for value in values]) for i in range(length))]
        return tuple[infer_annotation([item for value in values for item in value]), ...]
    return kind


class SeedEngine(Engine):
    """Proposes the seed inputs that meet the preconditions, in order, each once (a given seed need
    only bind to the signature: the annotations are no precondition on the task's own inputs)."""

    name = "seeds"
    checks_preconditions = True

    def __init__(self, context: CallContext) -> None:
        super().__init__(context)
        self._next = 0
        self._seen: set[str] = set()
        self._proposed = 0
        self._rejected = 0
        #: the shaped calls, made once the user's seeds are used up (None: not yet), and made
        #: again once the banks are final (their regexes sampled)
        self._shaped: list[Input] | None = None
        self._shaped_final = False
        #: every call, when the signature and the precondition allow few (engines/calls/spaces.py)
        self._space = self._listed_space()
        self._space_next = 0

    def _listed_space(self) -> tuple[str, list[Input], int] | None:
        from divergent.engines.calls.spaces import call_space

        signature = self.context.signature
        if signature is None:
            return None
        return call_space(signature, getattr(self.context.require, "expression", None),
                          lambda call: preconditions.conforms(call, signature) and satisfies_requirement(self.context, call))

    def whole_space(self) -> tuple[str, Sequence[AnyInput], int, str] | None:
        """The listed calls, once every one of them was proposed (the search knows which ran)."""
        if self._space is None or self._space_next < len(self._space[1]):
            return None
        what, calls, listed = self._space
        return what, calls, listed, "the annotations" + (" and --require" if self.context.require is not None else "")

    def _all_seeds(self) -> tuple[Input, ...]:
        seeds = self.context.seeds
        shaped = self.context.shaped
        if self._next < len(seeds) or shaped is None:
            return seeds
        if self._shaped is None or (not self._shaped_final and shaped.complete):
            from divergent.engines.calls.shaped import shaped_calls

            self._shaped_final = shaped.complete
            made = shaped_calls(self.context, seeds)  # (shaped values exist for calls only)
            known = {call.key for call in self._shaped or ()}
            self._shaped = [*(self._shaped or ()), *(call for call in made if call.key not in known)]
        return (*seeds, *self._shaped)

    def propose(self, n: int) -> list[Input]:
        batch: list[Input] = []
        while len(batch) < n:
            seeds = self._all_seeds()
            if self._next >= len(seeds):
                space = self._space[1] if self._space is not None else []
                while self._space_next < len(space) and len(batch) < n:
                    call = space[self._space_next]
                    self._space_next += 1
                    if call.key not in self._seen:
                        self._seen.add(call.key)
                        batch.append(call)
                break
            given = self._next < len(self.context.seeds)
            seed = seeds[self._next]
            self._next += 1
            if seed.key in self._seen:
                continue
            self._seen.add(seed.key)
            # A given seed is an input of the task whatever the annotations say (a test passing a
            # tuple where one implementation annotates list): it must only bind. Shaped calls keep
            # to the annotations.
            fits = (preconditions.bind_arguments(seed, self.context.signature) is not None if given
                    else preconditions.conforms(seed, self.context.signature))
            if not fits or not satisfies_requirement(self.context, seed):
                self._rejected += 1
                continue
            batch.append(
                seed if seed.how_generated else Input(seed.args, seed.kwargs, how_generated=self.name)
            )
        self._proposed += len(batch)
        space_left = self._space is not None and self._space_next < len(self._space[1])
        if not batch and not space_left and self._next >= len(self._all_seeds()) and (
                self._shaped_final or self.context.shaped is None):
            shaped = f" and {len(self._shaped)} shaped by the code" if self._shaped else ""
            raise EngineCannotProceed(
                "exhausted",
                f"all {len(self.context.seeds)} seed inputs{shaped} used ({self._proposed} proposed, "
                f"{self._rejected} not meeting the preconditions, the rest duplicates)",
            )
        return batch
