"""The mutator's operators on strings and bytes: Table 6's character edits (insert, delete,
replace a char, truncate, extend, duplicate a substring), case mappings, harvested strings, a run
of one character; and, outside Table 6, edits by the code's structure: a word added at either end
(``add-word``), a value of the parameter's shaped bank (``shaped-value``: a regex's match, a date
in the code's format...), and an edit by the value's parts (``reshape``: a URL's scheme swapped, an
attribute's value dropped, a token repeated; :func:`divergent.grammars.edits.reshape`).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from random import Random
from typing import TYPE_CHECKING, Any, Protocol

from divergent.engines.calls.sizes import run_length_within
from divergent.engines.constants import Constants
from divergent.grammars.words import with_word

if TYPE_CHECKING:
    from divergent.structure.inputs import ShapedInputs

__all__ = ["ASCII", "mutate_text", "random_byte"]


class MutatorView(Protocol):
    """What these operators use of :class:`divergent.engines.calls.mutators.Mutator`."""

    rng: Random
    constants: Constants
    table6: bool
    size: float
    shaped: ShapedInputs | None
    parameter: str | None
    applied: list[str]

    def pick(self, family: str, operators: Sequence[str]) -> str: ...

ASCII = string.printable


def random_byte(rng: Random) -> bytes:
    if rng.random() < 0.7:
        return rng.choice(ASCII).encode()
    return bytes((rng.randrange(256),))


def _shaped_operators(mutator: MutatorView, value: Any, family: str, depth: int) -> list[str]:
    """The structure operators that apply: only while searching, on a parameter's own value."""
    if mutator.table6:
        return []
    operators = ["add-word"] if family == "str" else []
    shaped, parameter = mutator.shaped, mutator.parameter
    if shaped is None or parameter is None or depth > 0:
        return operators
    bank = shaped.values(parameter)
    if any(type(v) is (str if family == "str" else bytes) for v in bank[:64]):
        operators += ["shaped-value", "shaped-value"]
    if family == "str" and value:
        operators.append("reshape")
    return operators


def _shaped(mutator: MutatorView, operator: str, value: Any, family: str) -> Any:
    rng = mutator.rng
    shaped, parameter = mutator.shaped, mutator.parameter
    if operator == "add-word":
        words = tuple(literal for literal in mutator.constants.strings[:50] if 0 < len(literal) <= 12)
        return with_word(value, rng, words)
    assert shaped is not None and parameter is not None
    if operator == "reshape":
        changed, edit = shaped.edit(value, parameter, rng)
        mutator.applied.append(f"reshape:{edit}")
        return changed
    wanted = str if family == "str" else bytes
    for _ in range(8):
        drawn = shaped.draw(parameter, rng)
        if drawn is not None and type(drawn[0]) is wanted:
            mutator.applied.append(f"shaped:{drawn[1]}")
            return drawn[0]
    return value


def mutate_text(
    mutator: MutatorView, value: Any, family: str, random_unit: Callable[[], Any], harvested: Sequence[Any], depth: int = 0,
) -> Any:
    """One operator on a str or bytes value (``random_unit`` draws one char/byte)."""
    rng = mutator.rng
    empty = value[:0]
    operators = ["insert-char", "extend-substring", "harvested-splice" if harvested else "insert-char", "repeat-run"]
    if value:
        operators += [
            "delete-char", "replace-char", "truncate-substring", "duplicate-substring", "swap-case", "empty",
        ]  # fmt: skip
        if family == "str":
            operators += ["upper-case", "lower-case", "case-fold"]
    if harvested:
        operators.append("harvested-string")
    operators += _shaped_operators(mutator, value, family if family != "bytearray" else "bytes", depth)
    operator = mutator.pick(family, operators)
    length = len(value)
    if operator in ("add-word", "shaped-value", "reshape"):
        return _shaped(mutator, operator, value, family)
    if operator == "insert-char":
        at = rng.randint(0, length)
        return value[:at] + random_unit() + value[at:]
    if operator == "extend-substring":
        at = rng.randint(0, length)
        return value[:at] + empty.join(random_unit() for _ in range(rng.randint(2, 6))) + value[at:]
    if operator == "harvested-splice":
        at = rng.randint(0, length)
        return value[:at] + rng.choice(harvested) + value[at:]
    if operator == "repeat-run":
        # One character (of the value, or a new one) repeated 10 to 100 times.
        at = rng.randint(0, length)
        unit = value[at - 1 : at] if at and rng.random() < 0.5 else random_unit()
        return value[:at] + unit * run_length_within(rng, mutator.size) + value[at:]
    if operator == "harvested-string":
        return rng.choice(harvested)
    if operator == "empty":
        return empty
    if operator == "swap-case":
        return value.swapcase()
    # Whole-string case mappings: where lower(), upper() and casefold() disagree (ß, İ, ﬁ, Σ).
    if operator == "upper-case":
        return value.upper()
    if operator == "lower-case":
        return value.lower()
    if operator == "case-fold":
        return value.casefold()
    at = rng.randrange(length)
    if operator == "delete-char":
        return value[:at] + value[at + 1 :]
    if operator == "replace-char":
        # Table 6 replaces with a random ASCII character; for str, sometimes a tricky one.
        unit = rng.choice(ASCII) if family == "str" and rng.random() < 0.7 else random_unit()
        return value[:at] + unit + value[at + 1 :]
    end = rng.randint(at + 1, length)
    if operator == "truncate-substring":
        return value[:at] + value[end:]
    return value[:end] + value[at:end] + value[end:]  # duplicate-substring
