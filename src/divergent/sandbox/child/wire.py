"""The shapes of the messages that carry programs' outcomes, and their checks.

The call child (:mod:`.calls`) runs untrusted code and writes these messages; the worker
(:mod:`.worker`) checks each one before relaying it, and the parent
(:mod:`divergent.sandbox.pool`, :mod:`divergent.sandbox.matrix`) checks them again when it reads
them. A message that fails a check is never an exception of divergent: the worker turns it into a
``crash`` outcome of the call it was for, the parent into a ``crash`` of that implementation.

An outcome on the wire::

    {"k": "returned" | "raised" | "timeout" | "crash",
     "v": <encoded value>,            returned: the value (divergent.values.encode)
     "e": [type, message, [bases]],   raised: the exception
     "a": <encoded [args, kwargs]>,   the arguments after the call (when asked for), or 0
                                      (ARGUMENTS_UNCHANGED): they are what divergent sent
     "o": "...",                      what the call printed (capped)
     "d": "...",                      timeout, crash: what happened
     "s": 0.0012}                     seconds the call took

In a matrix (``run_cells``) an outcome equal to an earlier one on the same input may be sent as
``{"same": k}``. Like every child module, this one imports only the standard library and
:mod:`divergent.values`.
"""

from __future__ import annotations

import math
from typing import Any

from divergent.values import MalformedEncoding, check_encoded

KINDS = frozenset({"returned", "raised", "timeout", "crash"})
#: ``"a"`` of an outcome whose call left its arguments exactly as they came: divergent encodes
#: them itself, once per input for every implementation (an encoding is always a list or an atom
#: of the arguments' own, never this bare 0)
ARGUMENTS_UNCHANGED = 0
_KEYS = frozenset({"k", "v", "e", "a", "o", "d", "s"})
#: characters of an exception's type name, message or detail (the call child cuts messages at 2,000)
_MAX_TEXT = 4000
_MAX_BASES = 200
_ATOMS = (type(None), bool, int, float, str)
#: seconds no call can have taken (also refuses NaN)
_FOREVER = 1e9


class Malformed(ValueError):
    """A message that is not what the protocol allows."""


def check_outcome(raw: Any, *, stdout_chars: int, kinds: frozenset[str] = KINDS) -> None:
    """Raise :class:`Malformed` unless ``raw`` is an outcome of one of ``kinds`` in its wire form,
    its values well-formed encodings of bounded depth and size, its texts of bounded length."""
    # The common case first, cheaply: a plain value returned, nothing printed.
    if (
        type(raw) is dict
        and len(raw) == 3
        and raw.get("k") == "returned"
        and "returned" in kinds
        and type(raw.get("v")) in _ATOMS
        and type(raw.get("s")) is float
        and 0.0 <= raw["s"] < _FOREVER
    ):
        return
    if type(raw) is not dict:
        raise Malformed("an outcome that is not an object")
    kind = raw.get("k")
    if kind not in kinds:
        raise Malformed(f"an outcome of kind {str(kind)[:40]!r}")
    if not raw.keys() <= _KEYS:
        raise Malformed("an outcome with unknown fields")
    seconds = raw.get("s", 0.0)
    if type(seconds) not in (int, float) or not (math.isfinite(seconds) and seconds >= 0):
        raise Malformed("an outcome with a strange duration")
    try:
        if "v" in raw:
            check_encoded(raw["v"])
        if "a" in raw and not unchanged_arguments(raw["a"]):
            check_encoded(raw["a"])
    except MalformedEncoding as error:
        raise Malformed(f"a malformed value: {error}") from None
    if "e" in raw:
        exception = raw["e"]
        if (
            type(exception) is not list
            or len(exception) != 3
            or type(exception[0]) is not str
            or type(exception[1]) is not str
            or type(exception[2]) is not list
            or len(exception[0]) > _MAX_TEXT
            or len(exception[1]) > _MAX_TEXT
            or len(exception[2]) > _MAX_BASES
            or any(type(base) is not str or len(base) > _MAX_TEXT for base in exception[2])
        ):
            raise Malformed("a malformed exception")
    elif kind == "raised":
        raise Malformed("a raised outcome without its exception")
    if "o" in raw and (type(raw["o"]) is not str or len(raw["o"]) > stdout_chars + 100):
        raise Malformed("printed text over the limit")
    if "d" in raw and (type(raw["d"]) is not str or len(raw["d"]) > _MAX_TEXT):
        raise Malformed("a malformed detail")


def unchanged_arguments(after: Any) -> bool:
    """Whether ``after`` (an outcome's ``"a"``) says the call left its arguments unchanged."""
    return type(after) is int and after == ARGUMENTS_UNCHANGED


def check_results_frame(frame: Any, *, from_worker: bool = False) -> list:
    """The results of a frame ``{"results": [...], "done": bool, "stopped": bool}`` (not yet checked
    one by one); raises :class:`Malformed` for any other shape. A frame from the worker may also
    carry a ``failure`` (see :func:`check_failure`)."""
    allowed = {"results", "done", "stopped", "failure"} if from_worker else {"results", "done", "stopped"}
    if type(frame) is not dict or not frame.keys() <= allowed:
        raise Malformed("not a results frame")
    results = frame.get("results", [])
    if type(results) is not list:
        raise Malformed("results that are not a list")
    if type(frame.get("done", False)) is not bool or type(frame.get("stopped", False)) is not bool:
        raise Malformed("flags that are not booleans")
    if "failure" in frame:
        check_failure(frame["failure"])
    return results


def check_failure(failure: Any) -> None:
    """Raise :class:`Malformed` unless ``failure`` is what the worker reports when its call child
    died, hung or broke the protocol: ``{"kind": "crash" | "timeout" | "protocol", "detail": "...",
    "started": int | None}``."""
    if (
        type(failure) is not dict
        or failure.keys() != {"kind", "detail", "started"}
        or failure["kind"] not in ("crash", "timeout", "protocol")
        or type(failure["detail"]) is not str
        or len(failure["detail"]) > _MAX_TEXT
        or (failure["started"] is not None and type(failure["started"]) is not int)
    ):
        raise Malformed("a malformed failure report")


def check_load_answer(answer: Any) -> None:
    """Raise :class:`Malformed` unless ``answer`` is the answer to ``load``: ``{"ok": bool, "kind",
    "error", "stdout": str, "constants": [encoded atoms]}``."""
    if type(answer) is not dict or type(answer.get("ok")) is not bool:
        raise Malformed("not an answer to load")
    if not answer.keys() <= {"ok", "kind", "error", "stdout", "constants"}:
        raise Malformed("an answer to load with unknown fields")
    for key in ("kind", "error", "stdout"):
        if key in answer and type(answer[key]) is not str:
            raise Malformed(f"an answer to load whose {key} is not text")
    constants = answer.get("constants", [])
    if type(constants) is not list or len(constants) > 1000:
        raise Malformed("malformed constants")
    try:
        for constant in constants:
            check_encoded(constant, max_depth=2, max_nodes=10)
    except MalformedEncoding as error:
        raise Malformed(f"a malformed constant: {error}") from None
