"""A worker's answers, checked: what a call child sends about a call becomes an :class:`Outcome`
only once every field is well-formed (:mod:`divergent.sandbox.child.wire`); a returned value is an
encoding the parent can check without running anything (no unpickling), the arguments' state after
the call is compared with what was sent, and a load answer's constants are plain atoms.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from divergent.records import ExceptionInfo, Input, Outcome, OutcomeKind
from divergent.sandbox.child.wire import Malformed, check_load_answer, check_outcome, unchanged_arguments
from divergent.values import Encoded, MalformedEncoding, NotBuiltin, check_encoded, decode_builtin, encode

__all__ = ["ArgumentEncodings", "checked_outcome", "decoded_atoms", "outcome_from_wire", "well_formed_load_answer"]


_KINDS = {kind.value: kind for kind in OutcomeKind}


def decoded_atoms(encoded: object) -> list:
    """Rebuild the reported runtime constants; anything that is not a plain atom is dropped."""
    if not isinstance(encoded, list):
        return []
    atoms = []
    for item in encoded:
        try:
            value = decode_builtin(item)
        except (NotBuiltin, TypeError, ValueError, IndexError):
            continue
        if type(value) in (int, float, str, bytes):
            atoms.append(value)
    return atoms


def well_formed_load_answer(answer: dict) -> bool:
    try:
        check_load_answer(answer)
    except Malformed:
        return False
    return True


_ATOMS = (type(None), bool, int, float, str)
_RETURNED = OutcomeKind.RETURNED
_RETURNED_KEYS = frozenset({"k", "v", "a", "s"})


class ArgumentEncodings:
    """The encoding of each input's arguments (``[args, kwargs]``), made when first needed: the
    arguments after a call that left them as they came (the call child says only that)."""

    def __init__(self, inputs: Sequence[Input]) -> None:
        self.inputs = inputs
        self._made: dict[int, Encoded] = {}

    def __call__(self, index: int) -> Encoded:
        encoded = self._made.get(index)
        if encoded is None:
            item = self.inputs[index]
            encoded = self._made[index] = encode([list(item.args), dict(item.kwargs)])
        return encoded


def checked_outcome(raw: object, stdout_chars: int, arguments: ArgumentEncodings, index: int) -> Outcome:
    """The :class:`Outcome` of a wire outcome for input ``index``, checked first
    (:func:`~divergent.sandbox.child.wire.check_outcome`: raises ``Malformed``)."""
    # The common case, checked and built at once: a value returned (and the arguments after the
    # call), nothing printed.
    if type(raw) is dict and raw.get("k") == "returned" and raw.keys() <= _RETURNED_KEYS:
        value, seconds, after = raw.get("v"), raw.get("s"), raw.get("a")
        if type(seconds) is float and 0.0 <= seconds < 1e9:
            if unchanged_arguments(after):
                after = arguments(index)
            elif after is not None:
                _check_value(after)
            if type(value) not in _ATOMS:
                _check_value(value)
            return Outcome(_RETURNED, value, args_after=after, seconds=seconds)
    check_outcome(raw, stdout_chars=stdout_chars)
    outcome = outcome_from_wire(raw)  # type: ignore[arg-type]
    if unchanged_arguments(outcome.args_after):
        outcome = dataclasses.replace(outcome, args_after=arguments(index))
    return outcome


def _check_value(value: Encoded) -> None:
    try:
        check_encoded(value)
    except MalformedEncoding as error:
        raise Malformed(f"a malformed value: {error}") from None


def outcome_from_wire(raw: dict) -> Outcome:
    """The :class:`Outcome` a worker reported in its wire form (``{"k": kind, "v": value, ...}``),
    checked before with :func:`~divergent.sandbox.child.wire.check_outcome`; raises KeyError,
    TypeError or ValueError for a malformed one."""
    kind = _KINDS[raw["k"]]
    exception = None
    if kind is OutcomeKind.RAISED:
        name, message, mro = raw["e"]
        exception = ExceptionInfo(type_name=str(name), message=str(message), mro=tuple(map(str, mro)))
    return Outcome(
        kind=kind,
        value=raw.get("v"),
        exception=exception,
        args_after=raw.get("a"),
        stdout=str(raw.get("o", "")),
        detail=str(raw.get("d", "")),
        seconds=float(raw.get("s", 0.0)),
    )
