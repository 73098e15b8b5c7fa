"""Run the two sides of one benchmark pair on the same input and say whether they behave differently.

Run as a child process (the pair code is untrusted and may hang, recurse or blow up)::

    python compare_call.py STAGED_DIR FUNCTION --call "f(1, [2, 3])"
    python compare_call.py STAGED_DIR FUNCTION --fuzz 2000 --seed 0 [--types '{"s": "str"}']

STAGED_DIR holds the two sides as ``pair_a.py`` and ``pair_b.py`` (see ``suite.stage_pair``). The
answer is one JSON object on stdout.

"Behave differently" follows divergent's default equality policy, restated here so that the suite
does not depend on the code it measures: both return and the values differ (numbers exactly when
neither is a float, floats by ``math.isclose`` with rel_tol=1e-9 and NaN equal to NaN, ``1 == 1.0 ==
True``, a list never equals a tuple, dicts and sets without regard to order), or one raises and the
other returns, or both raise exceptions of different types (messages are ignored), or the arguments
differ after the call (in-place mutation).
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import inspect
import json
import math
import signal
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CALL_TIMEOUT_SECONDS = 10.0
REL_TOL = 1e-9
#: names a tool may print in an input's repr (CrossHair prints ``nan``/``inf``, Hypothesis ``math.nan``)
EVAL_NAMESPACE: dict[str, Any] = {"nan": math.nan, "inf": math.inf, "math": math}


@dataclass
class Outcome:
    kind: str  # "returned", "raised" or "timeout"
    value: Any = None
    exception_type: str = ""
    args_after: Any = None

    def describe(self) -> str:
        if self.kind == "returned":
            text = f"returns {_short_repr(self.value)}"
        elif self.kind == "raised":
            text = f"raises {self.exception_type}"
        else:
            text = f"no answer within {CALL_TIMEOUT_SECONDS:g} s"
        return f"{text}; arguments after: {_short_repr(self.args_after)}"


class CallTimeout(Exception):
    pass


def _short_repr(value: Any, limit: int = 200) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - any repr may fail
        text = f"<unrepresentable: {type(exc).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _on_alarm(signum: int, frame: types.FrameType | None) -> None:
    raise CallTimeout


def run_side(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Outcome:
    args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_TIMEOUT_SECONDS)
    try:
        value = function(*args, **kwargs)
        outcome = Outcome("returned", value=value)
    except CallTimeout:
        outcome = Outcome("timeout")
    except Exception as exc:  # noqa: BLE001 - any exception is a behaviour to compare
        outcome = Outcome("raised", exception_type=type(exc).__name__)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    outcome.args_after = (list(args), kwargs)
    return outcome


# -- equality -------------------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, complex)


def numbers_equal(left: int | float, right: int | float) -> bool:
    if not isinstance(left, float) and not isinstance(right, float):
        return left == right
    try:
        left_float, right_float = float(left), float(right)
    except OverflowError:  # an int beyond float range against a float: compare exactly
        return left == right
    if math.isnan(left_float) or math.isnan(right_float):
        return math.isnan(left_float) and math.isnan(right_float)
    return left_float == right_float or math.isclose(left_float, right_float, rel_tol=REL_TOL)


def values_equal(left: Any, right: Any) -> bool:
    if left is right:
        return True
    if _is_number(left) or _is_number(right):
        return _is_number(left) and _is_number(right) and numbers_equal(left, right)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return (
            type(left) is type(right)
            and len(left) == len(right)
            and all(values_equal(x, y) for x, y in zip(left, right, strict=True))
        )
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(values_equal(left[key], right[key]) for key in left)
    try:
        return bool(left == right)
    except Exception:  # noqa: BLE001 - an __eq__ that raises means not equal
        return False


def outcomes_equal(left: Outcome, right: Outcome) -> bool:
    if left.kind != right.kind:
        return False
    if left.kind == "returned" and not values_equal(left.value, right.value):
        return False
    if left.kind == "raised" and left.exception_type != right.exception_type:
        return False
    return values_equal(left.args_after, right.args_after)


# -- call expressions -----------------------------------------------------------------------------


def parse_call(text: str, function_name: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``"f(1, x=[2])"`` -> ``((1,), {"x": [2]})``; the called name must be ``function_name``."""
    tree = ast.parse(text.strip(), mode="eval").body
    if not isinstance(tree, ast.Call) or not isinstance(tree.func, ast.Name):
        raise ValueError(f"not a call expression: {text!r}")
    if tree.func.id != function_name:
        raise ValueError(f"the call names {tree.func.id!r}, expected {function_name!r}")

    def evaluate(node: ast.expr) -> Any:
        return eval(compile(ast.Expression(node), "<input>", "eval"), dict(EVAL_NAMESPACE))

    args = tuple(evaluate(arg) for arg in tree.args)
    kwargs = {keyword.arg: evaluate(keyword.value) for keyword in tree.keywords if keyword.arg}
    return args, kwargs


def compare(
    first: Callable[..., Any], second: Callable[..., Any], args: tuple, kwargs: dict
) -> dict[str, Any]:
    outcome_a, outcome_b = run_side(first, args, kwargs), run_side(second, args, kwargs)
    return {
        "differs": not outcomes_equal(outcome_a, outcome_b),
        "a": outcome_a.describe(),
        "b": outcome_b.describe(),
    }


# -- random stress test for pairs claimed equivalent -----------------------------------------------

SPECIAL_INTS = [
    0,
    1,
    -1,
    2,
    7,
    100,
    255,
    256,
    2**31 - 1,
    2**31,
    -(2**31),
    2**53 + 1,
    2**63,
    -(2**64),
    10**400,
]
SPECIAL_FLOATS = [
    math.nan,
    -math.nan,
    math.inf,
    -math.inf,
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    0.5,
    -0.5,
    1.5,
    2.5,
    0.49999999999999994,
    1e16,
    69.99999999999999,
    70.0,
    90.0,
]
SPECIAL_TEXT = [
    "",
    " ",
    "ß",
    "İ",
    "ı",
    "ſ",
    "ﬁ",
    "²",
    "٣",
    "Σ",
    "ς",
    "ǅ",
    "\u0307",
    "\x00",
    "a b",
    "0",
    "-1",
    "100",
    " 42\n",
]


def strategy_for(annotation: Any) -> Any:
    """A Hypothesis strategy for a builtin annotation, biased towards the values that break code."""
    from hypothesis import strategies as st

    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return st.one_of(
            st.integers(), st.booleans(), st.integers(-(2**200), 2**200), st.sampled_from(SPECIAL_INTS)
        )
    if annotation is float:  # the numeric tower: an int is a valid float argument
        return st.one_of(
            st.floats(), st.sampled_from(SPECIAL_FLOATS), st.integers(), st.sampled_from(SPECIAL_INTS)
        )
    if annotation is str:
        return st.one_of(
            st.text(),
            st.text(alphabet="".join(SPECIAL_TEXT) + "abcABC019:/-_. "),
            st.sampled_from(SPECIAL_TEXT),
        )
    if annotation is bytes:
        return st.binary()
    if origin is list:
        return st.lists(strategy_for(arguments[0]), max_size=12)
    if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
        return st.lists(strategy_for(arguments[0]), max_size=12).map(tuple)
    if origin is tuple:
        return st.tuples(*(strategy_for(argument) for argument in arguments))
    if origin is dict:
        return st.dictionaries(strategy_for(arguments[0]), strategy_for(arguments[1]), max_size=8)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(
            *(st.none() if argument is type(None) else strategy_for(argument) for argument in arguments)
        )
    return st.from_type(annotation)


#: the names a type written in ``meta.json`` (``arg_types``) may use
TYPE_NAMESPACE: dict[str, Any] = {
    "int": int, "float": float, "str": str, "bool": bool, "bytes": bytes, "list": list, "dict": dict,
    "tuple": tuple, "None": None,
}


def parse_type(text: str) -> Any:
    """``"list[str]"``, ``"int | None"`` -> the typing object (builtin types only)."""
    return eval(compile(text, "<type>", "eval"), {"__builtins__": {}}, dict(TYPE_NAMESPACE))


def parameter_types(function: Callable[..., Any], types: dict[str, str] | None) -> dict[str, Any]:
    """The parameters to generate and their types: the given ``types`` (for unannotated code, the
    types of the witness's arguments), else every parameter with its annotation."""
    if types:
        return {name: parse_type(text) for name, text in types.items()}
    hints = typing.get_type_hints(function)
    return {name: hints[name] for name in inspect.signature(function).parameters}


def fuzz(
    first: Callable[..., Any], second: Callable[..., Any], examples: int, random_seed: int,
    types: dict[str, str] | None = None,
) -> dict[str, Any]:
    from hypothesis import HealthCheck, Phase, given, seed, settings
    from hypothesis import strategies as st

    arguments = st.fixed_dictionaries(
        {name: strategy_for(annotation) for name, annotation in parameter_types(first, types).items()}
    )
    found: list[dict[str, Any]] = []

    @seed(random_seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(arguments)
    def check(kwargs: dict[str, Any]) -> None:
        verdict = compare(first, second, (), kwargs)
        if verdict["differs"] and not found:
            call = ", ".join(f"{name}={value!r}" for name, value in kwargs.items())
            found.append({"call": f"{first.__name__}({call})", **verdict})

    check()
    if found:
        return {"differs": True, "examples": examples, **found[0]}
    return {"differs": False, "examples": examples}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("staged_dir")
    parser.add_argument("function")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--call", help="a call expression such as 'f(1, [2])'")
    group.add_argument("--fuzz", type=int, metavar="EXAMPLES", help="random inputs to try")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--types", help='JSON {"parameter": "type"} for --fuzz (default: the annotations)')
    options = parser.parse_args()

    sys.path.insert(0, options.staged_dir)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    first = getattr(importlib.import_module("pair_a"), options.function)
    second = getattr(importlib.import_module("pair_b"), options.function)
    if options.call is not None:
        try:
            args, kwargs = parse_call(options.call, options.function)
        except Exception as exc:  # noqa: BLE001 - a tool may print any repr
            print(
                json.dumps({"differs": None, "error": f"cannot read the input: {type(exc).__name__}: {exc}"})
            )
            return 0
        answer = compare(first, second, args, kwargs)
    else:
        answer = fuzz(first, second, options.fuzz, options.seed, json.loads(options.types) if options.types else None)
    print(json.dumps(answer, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
