"""When the symbolic engine's exhaustive exploration proves the implementations equivalent.

CrossHair explores execution paths with symbolic values. When it has explored every path of every
ordering of every pair, each path running both implementations to the end and comparing them, with
no difference, no path dropped, cut short or nondeterministic (the runner says ``complete``), that
is a proof *to the extent CrossHair models the values and operations involved exactly, and to the
extent the runner's account can be trusted*. So a run counts as a proof only when:

* the code is code a proof may cover (:mod:`divergent.engines.calls.provable`): an allow-list of syntax
  and names shows that the implementations, and every function of their modules they call, can do
  nothing but compute (no import, no attribute but calls of pure container and int methods, no
  builtin beyond a short list of pure ones, no float, no text formatting, no state across calls).
  The runner executes the implementations inside its own process, beside the descriptor its account
  travels on; only code that can reach nothing of that process leaves the account trustworthy. The
  parent decides this before the runner starts, from the sources it then sends the runner to run
  (never re-read from disk, where a file or a cached ``.pyc`` could differ), and reads "complete"
  only from runs of such code;
* every parameter is annotated with a type built from ``int``, ``bool`` and ``None`` (``Optional``,
  unions, ``Literal`` values of those, fixed-length tuples of them): CrossHair's integers and
  booleans are exact (unbounded integers in an SMT solver); its floats are real numbers (no
  rounding, no NaN or -0.0 as Python has them), and its strings model Unicode only in part;
* the comparison is the default equality policy's value rule, without a user comparison or the
  comparison of printed output (CrossHair compares return values, exceptions by type and message,
  and the arguments after the call: at least as strictly as the policy).

:func:`proof_problem` says why a run does not qualify; :func:`proof_limits` words the claim's limits.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Sequence
from typing import Any

from divergent.annotations import UNION_ORIGINS
from divergent.comparison import Comparison
from divergent.engines.calls.provable import QUALIFYING_CODE, unprovable
from divergent.policy import EqualityPolicy
from divergent.programs import ParameterKind, Program, Signature

__all__ = ["EXACT_TYPES", "proof_limits", "proof_problem"]

#: the types whose symbolic model is exact (docs/cli.md, "Proofs")
EXACT_TYPES = "int, bool and None (Optional, unions, Literal values and fixed-length tuples of them)"
_NONE_TYPE = type(None)


def proof_problem(implementations: Sequence[Program], signature: Signature, comparison: Comparison) -> str | None:
    """Why an exhaustive symbolic exploration of these implementations is not a proof; None when it is."""
    problem = _policy_problem(comparison)
    if problem:
        return problem
    for parameter in signature.parameters:
        if parameter.kind in (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD):
            return f"parameter {parameter.name} takes any number of arguments"
        if not parameter.annotated:
            return f"parameter {parameter.name} has no annotation"
        if not _exact_annotation(_NONE_TYPE if parameter.annotation is None else parameter.annotation):
            return f"parameter {parameter.name}: only {EXACT_TYPES} are modelled exactly"
    for impl in implementations:
        problem = _code_problem(impl.source, impl.setup_code, impl.entry_point)
        if problem:
            return f"{impl.label}: {problem}"
    return None


def proof_limits(signature: Signature, requirement: bool) -> tuple[str, ...]:
    """The claim's limits, one sentence each, for the report."""
    limits = [
        "for every argument the annotations allow ("
        + ", ".join(f"{p.name}: {_describe(p.annotation)}" for p in signature.parameters)
        + ")",
        "under the default equality policy (return values, exceptions by type, arguments after the call)",
        "as Python's integers and booleans behave, modelled exactly by CrossHair; each path ran within "
        "CrossHair's per-path time limit and the sandbox's recursion and memory limits",
        f"for {QUALIFYING_CODE} (an allow-list, checked on the source text the exploration then ran; "
        "docs/cli.md, 'Which code may be proven')",
    ]
    if requirement:
        limits.append("the proof covers every such input, those --require rules out included")
    return tuple(limits)


def _describe(annotation: Any) -> str:
    if annotation is None or annotation is _NONE_TYPE:
        return "None"
    return getattr(annotation, "__qualname__", None) if isinstance(annotation, type) else repr(annotation).replace(
        "typing.", ""
    )


def _policy_problem(comparison: Comparison) -> str | None:
    if not isinstance(comparison, EqualityPolicy) or comparison.values.name != "default":
        return "the comparison is not the default equality policy"
    if comparison.compare is not None:
        return "a user comparison (--compare) may say anything"
    if comparison.compare_stdout:
        return "printed output is compared, which the symbolic exploration does not"
    return None


def _exact_annotation(annotation: Any) -> bool:
    if annotation in (int, bool, _NONE_TYPE):
        return True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return all(type(value) in (int, bool, _NONE_TYPE) for value in args)
    if origin in UNION_ORIGINS:
        return all(_exact_annotation(member) for member in args)
    if origin is tuple:
        return bool(args) and Ellipsis not in args and all(_exact_annotation(item) for item in args)
    return False


@functools.lru_cache(maxsize=64)
def _code_problem(source: str, setup_code: str, entry_point: str) -> str | None:
    # The setup code runs in the module's namespace after it: read as the module's last lines.
    return unprovable(source + (f"\n{setup_code}\n" if setup_code.strip() else ""), entry_point)
