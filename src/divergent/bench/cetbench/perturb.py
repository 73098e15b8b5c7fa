"""CETBench's seven perturbation types, each in a semantics-preserving (sp) and a breaking (np)
variant, as source-to-source rewrites of Python with libcst (the paper's Table 1 and Appendix A.3).

=====================  ===============================================  =============================================
type                   preserving                                       breaking
=====================  ===============================================  =============================================
if_else_swap           negate the condition and swap if/else blocks     negate the condition, keep the blocks
for_while_swap         ``for i in range(...)`` as the equivalent while  the while with a wrong start, bound or step
if_condition_flip      ``a < b`` as ``not (a >= b)``                    the inverse operator ``a >= b`` (or ``not``)
variable_renaming      1-3 variables renamed consistently               one read of a renamed variable gets another name
boolean_inversion      a flag's literals inverted, every read negated   the first literal inverted, reads unchanged
statement_reorder      two adjacent data-independent statements swapped two adjacent data-dependent statements swapped
expression_reformat    a leading sub-expression moved to a temporary    the temporary used, the expression rebuilt wrong
=====================  ===============================================  =============================================

A rewrite picks its site at random (``rng``) among the places it applies to and returns the new
source with a one-line description, or None when the program offers no such place. The checks a
rewrite makes are syntactic and conservative (a preserving swap of statements needs them free of
calls that could touch shared state, say); what no syntactic check can promise, the generator
validates by running: a preserving step must keep the tests' results and leave divergent finding no
difference, a breaking step must make a test fail (:mod:`divergent.bench.cetbench.generate`).

This module holds the API and the control-flow rewrites; :mod:`.perturb_data` the data-flow ones,
:mod:`.perturb_common` the types and the libcst helpers both use.
"""

from __future__ import annotations

import ast
import functools
import random
from collections.abc import Callable, Sequence

import libcst as cst

from divergent.bench.cetbench import perturb_data
from divergent.bench.cetbench.perturb_common import (
    Applied,
    PerturbationType,
    Rewrite,
    as_block,
    collect,
    fresh_name,
    names_in,
    negate,
    replace_node,
    statement,
)

__all__ = ["Applied", "PerturbationType", "apply_perturbation", "kinds_applicable"]


# -- if-else swapping --------------------------------------------------------------------------------


def _if_else_swap(module: cst.Module, rng: random.Random, preserving: bool) -> tuple[cst.Module, str] | None:
    sites = collect(module, lambda n: isinstance(n, cst.If) and isinstance(n.orelse, cst.Else))
    if not sites:
        return None
    target = rng.choice(sites)
    condition = module.code_for_node(target.test)  # type: ignore[attr-defined]

    def build(node: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(node, cst.If) and isinstance(node.orelse, cst.Else)
        negated = node.with_changes(test=negate(node.test), whitespace_before_test=cst.SimpleWhitespace(" "))
        if not preserving:
            return negated
        return negated.with_changes(body=node.orelse.body, orelse=node.orelse.with_changes(body=node.body))

    verb = "negated and swapped the blocks of" if preserving else "negated without swapping the blocks of"
    return replace_node(module, target, build), f"{verb} `if {condition}:`"


# -- for-while swapping ------------------------------------------------------------------------------


def _literal_int(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)
            and isinstance(node.expression, cst.Integer)):
        return -int(node.expression.evaluated_value)
    return None


def _range_arguments(node: cst.For) -> tuple[cst.BaseExpression, cst.BaseExpression, int] | None:
    call = node.iter
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "range"):
        return None
    if not 1 <= len(call.args) <= 3 or any(a.keyword is not None or a.star for a in call.args):
        return None
    values = [a.value for a in call.args]
    if len(values) == 1:
        return cst.Integer("0"), values[0], 1
    step = _literal_int(values[2]) if len(values) == 3 else 1
    if step is None or step == 0:
        return None
    return values[0], values[1], step


class _LoopBodyCheck(cst.CSTVisitor):
    """Whether a loop's own body continues (a nested loop's continue is its own) or rebinds ``name``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.depth = 0
        self.unsafe = False

    def visit_For(self, node: cst.For) -> None:
        self.depth += 1
        if isinstance(node.target, cst.Name) and node.target.value == self.name:
            self.unsafe = True

    def leave_For(self, node: cst.For) -> None:
        self.depth -= 1

    def visit_While(self, node: cst.While) -> None:
        self.depth += 1

    def leave_While(self, node: cst.While) -> None:
        self.depth -= 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Continue(self, node: cst.Continue) -> None:
        if self.depth == 0:
            self.unsafe = True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if self.name in names_in(node.target):
            self.unsafe = True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.name in names_in(node.target):
            self.unsafe = True

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if self.name in names_in(node.target):
            self.unsafe = True


def _uses_outside(module: cst.Module, loop: cst.For, name: str) -> bool:
    """Whether ``name`` is spelled anywhere outside ``loop`` (then the loop variable's final value,
    or its being unbound after an empty range, could matter)."""
    inside = {id(n) for n in collect(loop, lambda n: isinstance(n, cst.Name))}  # type: ignore[arg-type]
    return any(isinstance(n, cst.Name) and n.value == name and id(n) not in inside
               for n in collect(module, lambda n: isinstance(n, cst.Name)))


def _for_while_swap(module: cst.Module, rng: random.Random, preserving: bool) -> tuple[cst.Module, str] | None:
    def eligible(node: cst.CSTNode) -> bool:
        if not (isinstance(node, cst.For) and node.orelse is None and node.asynchronous is None
                and isinstance(node.target, cst.Name) and _range_arguments(node) is not None):
            return False
        check = _LoopBodyCheck(node.target.value)
        node.body.visit(check)
        return not check.unsafe and not _uses_outside(module, node, node.target.value)

    sites = collect(module, eligible)
    if not sites:
        return None
    target = rng.choice(sites)
    assert isinstance(target, cst.For) and isinstance(target.target, cst.Name)
    start, stop, step = _range_arguments(target)  # type: ignore[misc]
    variable = target.target.value
    taken = names_in(module)
    code = module.code_for_node
    start_text, stop_text = code(start), code(stop)
    init = f"{variable} = {start_text}"
    preamble: list[str] = []
    if _literal_int(stop) is None:
        bound = fresh_name(rng, taken)
        preamble.append(f"{bound} = {stop_text}")
    else:
        bound = stop_text
    relation = "<" if step > 0 else ">"
    update = f"{variable} += {step}" if step > 0 else f"{variable} -= {-step}"
    mistake = ""
    if not preserving:
        mistake = rng.choice(("start", "bound", "step"))
        if mistake == "start":
            init = f"{variable} = {start_text} + 1" if _literal_int(start) is None else f"{variable} = {_literal_int(start) + 1}"
        elif mistake == "bound":
            relation += "="
        else:
            update = f"{variable} += {step + 1}" if step > 0 else f"{variable} -= {-step + 1}"

    def build(node: cst.CSTNode) -> cst.FlattenSentinel:
        assert isinstance(node, cst.For)
        block = as_block(node.body)
        loop = cst.While(
            test=cst.parse_expression(f"{variable} {relation} {bound}"),
            body=block.with_changes(body=[*block.body, statement(update)]),
            leading_lines=node.leading_lines,
        )
        return cst.FlattenSentinel([statement(init), *(statement(line) for line in preamble), loop])

    header = f"for {variable} in {code(target.iter)}"
    if preserving:
        return replace_node(module, target, build), f"rewrote `{header}:` as a while loop"
    wrong = {"start": "starts one too far", "bound": "runs one step too many", "step": "steps one too far"}[mistake]
    return replace_node(module, target, build), f"rewrote `{header}:` as a while loop that {wrong}"


# -- if condition flipping ---------------------------------------------------------------------------

_INVERSE: dict[type[cst.BaseCompOp], Callable[[], cst.BaseCompOp]] = {
    cst.LessThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.LessThan,
    cst.GreaterThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.GreaterThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
}


def _simple_comparison(test: cst.BaseExpression) -> bool:
    return (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and type(test.comparisons[0].operator) in _INVERSE)


def _inverted(test: cst.Comparison) -> cst.Comparison:
    target = test.comparisons[0]
    operator = target.operator
    inverse = _INVERSE[type(operator)]()
    # keep the operator's spacing, but "in"/"is" need a space on each side (a<b has none)
    spaced = not isinstance(inverse, cst.LessThan | cst.GreaterThan | cst.LessThanEqual | cst.GreaterThanEqual
                            | cst.Equal | cst.NotEqual)
    if not spaced:
        inverse = inverse.with_changes(whitespace_before=operator.whitespace_before,  # type: ignore[attr-defined]
                                       whitespace_after=operator.whitespace_after)  # type: ignore[attr-defined]
    return test.with_changes(comparisons=[target.with_changes(operator=inverse)], lpar=[], rpar=[])


def _if_condition_flip(module: cst.Module, rng: random.Random, preserving: bool) -> tuple[cst.Module, str] | None:
    if preserving:
        sites = collect(module, lambda n: isinstance(n, cst.If) and _simple_comparison(n.test))
    else:
        sites = collect(module, lambda n: isinstance(n, cst.If))
    if not sites:
        return None
    target = rng.choice(sites)
    assert isinstance(target, cst.If)
    before = module.code_for_node(target.test)

    def build(node: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(node, cst.If)
        test = node.test
        if _simple_comparison(test):
            assert isinstance(test, cst.Comparison)
            flipped = _inverted(test)
            return node.with_changes(test=negate(flipped) if preserving else flipped,
                                     whitespace_before_test=cst.SimpleWhitespace(" "))
        return node.with_changes(test=negate(test), whitespace_before_test=cst.SimpleWhitespace(" "))

    changed = replace_node(module, target, build)
    return changed, f"rewrote the condition `{before}`" + (" to an equivalent form" if preserving else " to its opposite")


# -- the registry ------------------------------------------------------------------------------------


def _rewrites() -> dict[PerturbationType, Rewrite]:
    return {
        PerturbationType.IF_ELSE_SWAP: _if_else_swap,
        PerturbationType.FOR_WHILE_SWAP: _for_while_swap,
        PerturbationType.IF_CONDITION_FLIP: _if_condition_flip,
        PerturbationType.VARIABLE_RENAMING: perturb_data.variable_renaming,
        PerturbationType.BOOLEAN_INVERSION: perturb_data.boolean_inversion,
        PerturbationType.STATEMENT_REORDER: perturb_data.statement_reorder,
        PerturbationType.EXPRESSION_REFORMAT: perturb_data.expression_reformat,
    }


@functools.lru_cache(maxsize=32)
def _parsed(source: str) -> cst.Module | None:
    """``source`` parsed (None: it does not parse), remembered: the rewrites never change a module,
    and a generation step tries type after type on one version."""
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None


def apply_perturbation(
    source: str, kind: PerturbationType, preserving: bool, rng: random.Random
) -> Applied | None:
    """``kind``'s preserving or breaking rewrite at a random site of ``source``; None when ``source``
    does not parse, offers no site, or the rewrite would not parse (never expected)."""
    module = _parsed(source)
    if module is None:
        return None
    try:
        done = _rewrites()[kind](module, rng, preserving)
    except (cst.CSTValidationError, cst.ParserSyntaxError, ValueError, RecursionError):
        return None  # a construct the rewrite cannot express: no site
    if done is None:
        return None
    changed, description = done
    code = changed.code
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    if code == source:
        return None
    return Applied(code, kind, preserving, description)


def kinds_applicable(source: str, preserving: bool, kinds: Sequence[PerturbationType] = tuple(PerturbationType)) -> list[PerturbationType]:
    """The perturbation types that have at least one site in ``source`` (tried with a fixed seed)."""
    return [kind for kind in kinds if apply_perturbation(source, kind, preserving, random.Random(0)) is not None]
