"""Two plain baselines for ``side_by_side.py``, run as a child process on a staged pair.

* ``hypothesis``: a property test written the way a developer would write it by hand, arguments from
  ``st.from_type`` of each parameter's annotation, asserting that both sides behave alike; Hypothesis
  runs it (no example database, no deadline) until it fails, and shrinks the failure as it does.
* ``random``: a plain loop drawing random arguments of the annotated types (ints mostly small, some
  wide; printable strings of up to 10 characters; up to 10 items per container) and comparing the
  sides, until the first difference.

"Behave alike" is ``compare_call.py``'s restatement of divergent's default policy. A call that runs
past 2 seconds is a timeout, which differs from returning (the tools have no notion of a hang). The
runner stops at the first difference and prints one JSON object (``found``, ``call``, ``examples``);
the parent kills it at the end of its budget.

    python property_runner.py STAGED_DIR FUNCTION hypothesis|random ['{"parameter": "type"}']

Arguments follow the annotations; for unannotated code the optional JSON names the parameters to
generate and their types (``arg_types`` of a ``realbugs/`` pair: the types of the witness's
arguments; the other parameters keep their defaults).
"""

from __future__ import annotations

import json
import random
import string
import sys
import types
import typing
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare_call

#: seconds a call may run before it counts as a timeout (the tools' own runs have no limit at all)
compare_call.CALL_TIMEOUT_SECONDS = 2.0


class Different(Exception):
    """Both sides did not behave alike on these arguments."""


def call_text(function: str, args: dict[str, Any]) -> str:
    return f"{function}({', '.join(f'{name}={value!r}' for name, value in args.items())})"


def differs(first: Any, second: Any, kwargs: dict[str, Any]) -> bool:
    return compare_call.compare(first, second, (), kwargs)["differs"]


def argument_types(first: Any, types: dict[str, str] | None) -> dict[str, Any]:
    """The parameters to generate and their types: every annotated parameter with its annotation,
    or, for unannotated code (``realbugs/``), the parameters the witness passes with the types of
    its values."""
    if types:
        return compare_call.parameter_types(first, types)
    hints = typing.get_type_hints(first)
    return {name: hint for name, hint in hints.items() if name != "return"}


def run_hypothesis(first: Any, second: Any, function: str, types: dict[str, str] | None = None) -> dict[str, Any]:
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    hints = argument_types(first, types)
    names = list(hints)
    examples = 0

    @seed(0)
    @settings(max_examples=10**9, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              print_blob=False)
    @given(st.fixed_dictionaries({name: st.from_type(hints[name]) for name in names}))
    def both_alike(kwargs: dict[str, Any]) -> None:
        nonlocal examples
        examples += 1
        if differs(first, second, kwargs):
            raise Different(call_text(function, kwargs))

    try:
        both_alike()
    except Different as found:
        return {"found": True, "call": str(found), "examples": examples}
    return {"found": False, "call": None, "examples": examples}


def random_value(annotation: Any, rng: random.Random, depth: int = 0) -> Any:
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is bool:
        return rng.random() < 0.5
    if annotation is int:
        roll = rng.random()
        if roll < 0.5:
            return rng.randint(-100, 100)
        if roll < 0.8:
            return rng.randint(-(10**6), 10**6)
        return rng.getrandbits(64) - 2**63
    if annotation is float:
        return rng.uniform(-1000.0, 1000.0) if rng.random() < 0.8 else rng.uniform(-1, 1) * 10.0 ** rng.randint(-20, 20)
    if annotation is str:
        return "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 10)))
    if annotation is bytes:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 10)))
    if annotation is type(None) or annotation is None:
        return None
    size = rng.randint(0, 10) if depth < 3 else 0
    if origin is list:
        return [random_value(arguments[0], rng, depth + 1) for _ in range(size)]
    if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
        return tuple(random_value(arguments[0], rng, depth + 1) for _ in range(size))
    if origin is tuple:
        return tuple(random_value(argument, rng, depth + 1) for argument in arguments)
    if origin in (set, frozenset):
        return origin(random_value(arguments[0], rng, depth + 1) for _ in range(size))
    if origin is dict:
        return {random_value(arguments[0], rng, depth + 1): random_value(arguments[1], rng, depth + 1)
                for _ in range(min(size, 5))}
    if origin in (typing.Union, types.UnionType):
        return random_value(rng.choice(arguments), rng, depth)
    if origin is typing.Literal:
        return rng.choice(arguments)
    raise TypeError(f"no random values of {annotation!r}")


def run_random(first: Any, second: Any, function: str, types: dict[str, str] | None = None) -> dict[str, Any]:
    hints = argument_types(first, types)
    names = list(hints)
    rng = random.Random(0)
    examples = 0
    while True:
        kwargs = {name: random_value(hints[name], rng) for name in names}
        examples += 1
        if differs(first, second, kwargs):
            return {"found": True, "call": call_text(function, kwargs), "examples": examples}


def main() -> int:
    staged, function, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    types = json.loads(sys.argv[4]) if len(sys.argv) > 4 else None
    sys.path.insert(0, staged)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    import importlib

    first = getattr(importlib.import_module("pair_a"), function)
    second = getattr(importlib.import_module("pair_b"), function)
    runner = run_hypothesis if mode == "hypothesis" else run_random
    result = runner(first, second, function, types)
    print(json.dumps(result, ensure_ascii=False, default=repr))
    return 0


if __name__ == "__main__":
    sys.exit(main())
