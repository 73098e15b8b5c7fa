"""Calls built from the values the code's structure suggests (:mod:`divergent.structure`), for
the seed, mutation and Hypothesis engines.

* :func:`inferred_annotation`: the annotation an unannotated parameter's uses suggest (``str`` for
  a parameter a regex is applied to, ``dict[str, Any]`` for one subscripted with keys);
* :func:`shaped_calls`: the seeds (or one call of simplest values) with one parameter at a time
  replaced by a value of its bank, the banks taken in turns; a dict parameter beside a string gets
  keys from the string's words (a filter ``"views > 10"`` over ``{"views": 11}``);
* :func:`words_appended`: each string argument of the seeds with a word added at its end (or its
  start): what string mutation tries first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from random import Random
from typing import Any

from divergent import preconditions
from divergent.engines.base import CallContext
from divergent.engines.calls.shapes import CannotGenerate, minimal_value
from divergent.grammars.words import with_word
from divergent.programs import Parameter, ParameterKind, Signature
from divergent.records import Input
from divergent.structure.findings import INFERRED_KINDS
from divergent.structure.inputs import ShapedInputs

__all__ = ["coupled_dict", "inferred_annotation", "replace_argument", "shaped_calls", "words_appended"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def inferred_annotation(shaped: ShapedInputs | None, name: str) -> Any | None:
    """What the code's uses say an unannotated parameter holds (text, bytes, a dict, a number, a
    list), or None."""
    if shaped is None:
        return None
    return INFERRED_KINDS.get(shaped.kind(name) or "")


def replace_argument(call: Input, signature: Signature, parameter: Parameter, value: Any) -> Input | None:
    """``call`` with ``parameter`` given ``value`` (where the call passes it, else by keyword)."""
    if parameter.kind in (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD):
        return None
    args = list(call.args)
    kwargs = dict(call.kwargs)
    positional = signature.positional
    if parameter.name in kwargs:
        kwargs[parameter.name] = value
    elif parameter in positional and positional.index(parameter) < len(args):
        args[positional.index(parameter)] = value
    elif parameter.kind is ParameterKind.POSITIONAL_ONLY:
        if positional.index(parameter) != len(args):
            return None
        args.append(value)
    else:
        kwargs[parameter.name] = value
    return Input(tuple(args), kwargs, how_generated=call.how_generated)


def coupled_dict(text: str, rng: Random) -> dict[str, Any]:
    """A dict keyed by the words of ``text``, valued with its numbers (and their neighbours) or words."""
    words = list(dict.fromkeys(_IDENTIFIER.findall(text)))[:6]
    numbers: list[Any] = []
    for found in _NUMBER.findall(text)[:4]:
        number = float(found) if "." in found else int(found)
        numbers.extend((number, number + 1, number - 1))
    pool = numbers + words + [0, 1, "", None, 10**6]
    return {word: rng.choice(pool) for word in words}


def _base_call(context: CallContext, shaped: ShapedInputs) -> Input | None:
    """A call of the simplest values: each required parameter's first shaped value, or the minimal
    value of its annotation; None when some required parameter has neither."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for parameter in context.signature.required:
        bank = shaped.values(parameter.name)
        if bank:
            value = bank[0]
        elif parameter.annotated:
            try:
                value = minimal_value(parameter.annotation)
            except CannotGenerate:
                return None
        else:
            return None
        if parameter.kind is ParameterKind.KEYWORD_ONLY:
            kwargs[parameter.name] = value
        else:
            args.append(value)
    return Input(tuple(args), kwargs)


def _compatible(current: Any, value: Any) -> bool:
    """A bank value may stand in for the seed's value: same kind (text for text, dict for dict)."""
    if current is _ABSENT:
        return True
    if isinstance(current, str | bytes | dict):
        return type(current) is type(value)
    return current is None


_ABSENT = object()


def shaped_calls(context: CallContext, seeds: Sequence[Input], limit: int = 64, how: str = "seeds") -> list[Input]:
    """Up to ``limit`` calls: ``seeds`` (or one call of simplest values) with one parameter replaced
    by a shaped value, the parameters' banks taken in turns; each meets the preconditions."""
    shaped = context.shaped
    if shaped is None:
        return []
    signature = context.signature
    parameters = [
        p for p in signature.parameters
        if p.kind not in (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD) and shaped.values(p.name)
    ]  # fmt: skip
    if not parameters:
        return []
    bases = [s for s in seeds if preconditions.conforms(s, signature)][:16]
    if not bases:
        base = _base_call(context, shaped)
        if base is None:
            return []
        bases = [base]
    dicts = [p for p in signature.parameters if shaped.kind(p.name) == "dict"]
    rng = Random(f"{context.seed}:shaped-calls")
    calls: dict[str, Input] = {}
    for i in range(limit * 3):
        if len(calls) >= limit:
            break
        parameter = parameters[i % len(parameters)]
        base = bases[(i // len(parameters)) % len(bases)]
        bank = shaped.values(parameter.name)
        value = bank[(i // len(parameters)) % len(bank)]
        binding = preconditions.bind_arguments(base, signature) or {}
        if not _compatible(binding.get(parameter.name, _ABSENT), value):
            continue
        call = replace_argument(Input(base.args, base.kwargs, how_generated=how), signature, parameter, value)
        if call is not None and isinstance(value, str) and dicts and i % 2 == 0:
            for target in dicts:
                if target is not parameter:
                    call = replace_argument(call, signature, target, coupled_dict(value, rng)) or call
        if call is not None and preconditions.conforms(call, signature):
            calls.setdefault(call.key, call)
    return list(calls.values())


def words_appended(seeds: Sequence[Input], rng: Random, words: tuple[str, ...] = (), per_argument: int = 2) -> list[Input]:
    """Each seed with one string argument given a word at its end (mostly) or its start."""
    found: dict[str, Input] = {}
    for seed in seeds[:16]:
        slots = [("arg", i) for i, v in enumerate(seed.args) if isinstance(v, str)]
        slots += [("kw", k) for k, v in seed.kwargs.items() if isinstance(v, str)]
        for where, at in slots:
            for _ in range(per_argument):
                args, kwargs = list(seed.args), dict(seed.kwargs)
                if where == "arg":
                    args[at] = with_word(args[at], rng, words)  # type: ignore[index]
                else:
                    kwargs[at] = with_word(kwargs[at], rng, words)  # type: ignore[index]
                call = Input(tuple(args), kwargs, how_generated="mutation")
                found.setdefault(call.key, call)
    return list(found.values())
