"""The pieces every CETBench rewrite is built from: the perturbation types, an applied perturbation,
and libcst helpers (collecting sites, replacing one node, fresh names, negation)."""

from __future__ import annotations

import builtins
import keyword
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import libcst as cst

__all__ = [
    "Applied",
    "PerturbationType",
    "Rewrite",
    "as_block",
    "collect",
    "fresh_name",
    "names_in",
    "negate",
    "parenthesized",
    "replace_node",
    "statement",
]


class PerturbationType(StrEnum):
    IF_ELSE_SWAP = "if_else_swap"
    FOR_WHILE_SWAP = "for_while_swap"
    IF_CONDITION_FLIP = "if_condition_flip"
    VARIABLE_RENAMING = "variable_renaming"
    BOOLEAN_INVERSION = "boolean_inversion"
    STATEMENT_REORDER = "statement_reorder"
    EXPRESSION_REFORMAT = "expression_reformat"


@dataclass(frozen=True)
class Applied:
    """One perturbation applied to a program."""

    source: str
    kind: PerturbationType
    preserving: bool
    description: str

    @property
    def flag(self) -> str:
        return "sp" if self.preserving else "np"


Rewrite = Callable[[cst.Module, random.Random, bool], tuple[cst.Module, str] | None]

# -- helpers ----------------------------------------------------------------------------------------

_RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))


class _NameCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier spelled in ``node`` (variables, attributes, keywords of calls...)."""
    collector = _NameCollector()
    node.visit(collector)
    return collector.names


def fresh_name(rng: random.Random, taken: set[str], length: int = 5) -> str:
    """A random lower-case identifier (five letters, as the paper's renamings) not in ``taken``;
    it is added to ``taken``."""
    while True:
        name = "".join(rng.choice(string.ascii_lowercase) for _ in range(length))
        if name not in taken and name not in _RESERVED:
            taken.add(name)
            return name


def parenthesized(expression: cst.BaseExpression) -> cst.BaseExpression:
    if expression.lpar:
        return expression
    return expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def negate(expression: cst.BaseExpression) -> cst.UnaryOperation:
    """``not (expression)`` (no extra parentheses around a name or a call)."""
    simple = isinstance(expression, cst.Name | cst.Call | cst.Attribute | cst.Subscript)
    return cst.UnaryOperation(operator=cst.Not(), expression=expression if simple else parenthesized(expression))


class _Collect(cst.CSTVisitor):
    """Nodes of some types, in source order, that a predicate accepts."""

    def __init__(self, accept: Callable[[cst.CSTNode], bool]) -> None:
        self.accept = accept
        self.found: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.accept(node):
            self.found.append(node)
        return True


def collect(module: cst.Module, accept: Callable[[cst.CSTNode], bool]) -> list[cst.CSTNode]:
    collector = _Collect(accept)
    module.visit(collector)
    return collector.found


class _ReplaceNode(cst.CSTTransformer):
    """Replace one node (found by identity) with what ``build`` makes of its updated form."""

    def __init__(self, target: cst.CSTNode, build: Callable[[cst.CSTNode], cst.CSTNode | cst.FlattenSentinel]) -> None:
        self.target = target
        self.build = build

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[no-untyped-def]
        if original_node is self.target:
            return self.build(updated_node)
        return updated_node


def replace_node(
    module: cst.Module, target: cst.CSTNode, build: Callable[[cst.CSTNode], cst.CSTNode | cst.FlattenSentinel]
) -> cst.Module:
    return module.visit(_ReplaceNode(target, build))


def as_block(body: cst.BaseSuite) -> cst.IndentedBlock:
    if isinstance(body, cst.IndentedBlock):
        return body
    assert isinstance(body, cst.SimpleStatementSuite)
    return cst.IndentedBlock(body=[cst.SimpleStatementLine(body=list(body.body))])


def statement(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)
