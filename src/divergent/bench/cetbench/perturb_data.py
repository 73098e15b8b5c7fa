"""CETBench's data-flow perturbations: variable renaming, boolean inversion, statement reordering and
expression reformatting, each preserving or breaking (see :mod:`.perturb` for the table and the API).

Renaming and boolean inversion follow libcst's scope analysis: a variable is every assignment of a
name in one scope with every read that may refer to them (reads from nested functions and
comprehensions included). Parameters, names declared ``global``/``nonlocal``, class attributes and
dunder names are never touched (a parameter's name is part of the function's signature).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import Assignment, ClassScope, MetadataWrapper, Scope, ScopeProvider

from divergent.bench.cetbench.perturb_common import (
    collect,
    fresh_name,
    names_in,
    negate,
    parenthesized,
    replace_node,
)

__all__ = ["boolean_inversion", "expression_reformat", "statement_reorder", "variable_renaming"]


@dataclass
class _Variable:
    name: str
    #: the Name nodes that bind it
    bindings: list[cst.Name]
    #: the Name nodes that read it
    reads: list[cst.Name]


def _declared_elsewhere(module: cst.Module) -> set[str]:
    declared: set[str] = set()
    for node in collect(module, lambda n: isinstance(n, cst.Global | cst.Nonlocal)):
        assert isinstance(node, cst.Global | cst.Nonlocal)
        declared.update(item.name.value for item in node.names)
    return declared


def _variables(module: cst.Module) -> list[_Variable]:
    """The renameable variables of ``module`` (whose nodes belong to ``module``), in source order."""
    return list(_module_variables(module))


@functools.lru_cache(maxsize=32)
def _module_variables(module: cst.Module) -> tuple[_Variable, ...]:
    """:func:`_variables`, remembered per module (nodes compare by identity, and a module never
    changes): a generation step tries rewrite after rewrite on one parsed version, and scope
    analysis is the costliest part of a rewrite."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = {s for s in wrapper.resolve(ScopeProvider).values() if s is not None}
    excluded = _declared_elsewhere(module)
    # libcst keeps scopes, assignments and references in sets (ordered by object address): put
    # them in source order, so that a seeded choice picks the same node in every process
    position = {id(node): number for number, node in enumerate(collect(module, lambda node: True))}

    def place(node: object) -> int:
        return position.get(id(node), -1)

    found: list[_Variable] = []
    for scope in sorted(scopes, key=lambda s: (str(type(s)), place(getattr(s, "node", None)))):
        if isinstance(scope, ClassScope):
            continue
        by_name: dict[str, list[Assignment]] = {}
        for assignment in sorted(scope.assignments, key=lambda a: place(getattr(a, "node", None))):
            if isinstance(assignment, Assignment) and isinstance(assignment.node, cst.Name):
                by_name.setdefault(assignment.name, []).append(assignment)
        for name, assignments in by_name.items():
            if name in excluded or name.startswith("__") or _has_parameter(scope, name):
                continue
            reads = [a.node for assignment in assignments for a in assignment.references
                     if isinstance(a.node, cst.Name)]
            bindings = [assignment.node for assignment in assignments]
            unique_reads = sorted({id(node): node for node in reads}.values(), key=place)
            found.append(_Variable(name, bindings, unique_reads))  # type: ignore[arg-type]
    return tuple(found)


def _has_parameter(scope: Scope, name: str) -> bool:
    return any(isinstance(a, Assignment) and isinstance(a.node, cst.Param) for a in scope.assignments[name])


class _Rename(cst.CSTTransformer):
    def __init__(self, names: dict[int, str]) -> None:
        self.names = names

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.names.get(id(original_node))
        return updated_node.with_changes(value=new) if new is not None else updated_node


def variable_renaming(module: cst.Module, rng: random.Random, preserving: bool) -> tuple[cst.Module, str] | None:
    variables = _variables(module)
    if not preserving:
        variables = [v for v in variables if v.reads]
    if not variables:
        return None
    chosen = rng.sample(variables, rng.randint(1, min(3, len(variables))))
    taken = names_in(module)
    mapping: dict[int, str] = {}
    renamed = []
    for variable in chosen:
        new = fresh_name(rng, taken)
        renamed.append(f"{variable.name} → {new}")
        for node in (*variable.bindings, *variable.reads):
            mapping[id(node)] = new
    description = "renamed " + ", ".join(renamed)
    if not preserving:
        broken = chosen[0]
        read = rng.choice(broken.reads)
        stray = fresh_name(rng, taken)
        mapping[id(read)] = stray
        description += f", but one read of {broken.name} as {stray}"
    return module.visit(_Rename(mapping)), description


# -- boolean inversion -----------------------------------------------------------------------------


def _bool_literal(node: cst.BaseExpression) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


class _Invert(cst.CSTTransformer):
    """Flip chosen literals; replace chosen reads with ``(not x)`` (``not x`` as an if/while test)."""

    def __init__(self, literals: set[int], reads: set[int]) -> None:
        self.literals = literals
        self.reads = reads
        self.negations: set[int] = set()

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if id(original_node) in self.literals:
            return updated_node.with_changes(value="False" if updated_node.value == "True" else "True")
        if id(original_node) in self.reads:
            negated = parenthesized(negate(updated_node))
            self.negations.add(id(negated))
            return negated
        return updated_node

    def _bare(self, test: cst.BaseExpression) -> cst.BaseExpression:
        return test.with_changes(lpar=[], rpar=[]) if id(test) in self.negations else test

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        if id(updated_node.test) not in self.negations:
            return updated_node
        return updated_node.with_changes(test=self._bare(updated_node.test), whitespace_before_test=cst.SimpleWhitespace(" "))

    def leave_While(self, original_node: cst.While, updated_node: cst.While) -> cst.While:
        if id(updated_node.test) not in self.negations:
            return updated_node
        return updated_node.with_changes(test=self._bare(updated_node.test), whitespace_after_while=cst.SimpleWhitespace(" "))


def boolean_inversion(module: cst.Module, rng: random.Random, preserving: bool) -> tuple[cst.Module, str] | None:
    literal_of: dict[int, cst.Name] = {}
    for node in collect(module, lambda n: isinstance(n, cst.Assign)):
        assert isinstance(node, cst.Assign)
        if (len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
                and _bool_literal(node.value) is not None):
            assert isinstance(node.value, cst.Name)
            literal_of[id(node.targets[0].target)] = node.value
    flags = [v for v in _variables(module)
             if v.reads and v.bindings and all(id(b) in literal_of for b in v.bindings)]
    if not flags:
        return None
    flag = rng.choice(flags)
    literals = [literal_of[id(b)] for b in flag.bindings]
    if preserving:
        change = _Invert({id(n) for n in literals}, {id(n) for n in flag.reads})
        description = f"inverted the flag {flag.name}: its values and every read"
    else:
        change = _Invert({id(literals[0])}, set())
        description = f"inverted the first value of the flag {flag.name} but none of its reads"
    return module.visit(change), description


# -- statement reordering --------------------------------------------------------------------------

#: builtins whose calls read their arguments and touch nothing else
_PURE_CALLS = frozenset({
    "abs", "all", "any", "bin", "bool", "chr", "dict", "divmod", "enumerate", "filter", "float", "frozenset",
    "hex", "int", "isinstance", "len", "list", "map", "max", "min", "oct", "ord", "pow", "range", "repr",
    "reversed", "round", "set", "sorted", "str", "sum", "tuple", "zip",
})
_IO_CALLS = frozenset({"print", "input"})
_IO = "<io>"
_UNKNOWN = "<unknown>"


@dataclass
class _Effects:
    reads: set[str]
    writes: set[str]

    @property
    def opaque(self) -> bool:
        return _UNKNOWN in self.reads or _UNKNOWN in self.writes


class _EffectCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.effects = _Effects(set(), set())

    def _targets(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.effects.writes.add(target.value)
        elif isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._targets(element.value)
        elif isinstance(target, cst.StarredElement):
            self._targets(target.value)
        elif isinstance(target, cst.Subscript | cst.Attribute):
            # a[i] = v writes into a (and reads a and i)
            self.effects.writes.update(names_in(target.value) - {"self"} or {_UNKNOWN})

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(node.target)

    def visit_Import(self, node: cst.Import) -> None:
        self.effects.writes.add(_UNKNOWN)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.effects.writes.add(_UNKNOWN)

    def visit_Call(self, node: cst.Call) -> None:
        function = node.func
        if isinstance(function, cst.Name):
            if function.value in _IO_CALLS:
                self.effects.reads.add(_IO)
                self.effects.writes.add(_IO)
            elif function.value not in _PURE_CALLS:
                self.effects.writes.add(_UNKNOWN)
        elif isinstance(function, cst.Attribute) and isinstance(function.value, cst.Name):
            # x.append(y) may change x
            self.effects.writes.add(function.value.value)
        else:
            self.effects.writes.add(_UNKNOWN)

    def visit_Name(self, node: cst.Name) -> None:
        self.effects.reads.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False  # the attribute's own name is not a variable

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False  # a keyword's name is not a variable

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.effects.writes.add(_UNKNOWN)
        return False


_CONTROL = (cst.Return, cst.Raise, cst.Break, cst.Continue, cst.Global, cst.Nonlocal, cst.Assert)


def _effects(line: cst.SimpleStatementLine) -> _Effects | None:
    """What a line reads and writes; None when it transfers control or may fail on purpose."""
    if any(isinstance(small, _CONTROL) for small in line.body):
        return None
    collector = _EffectCollector()
    line.visit(collector)
    return collector.effects


def _docstring(line: cst.BaseStatement) -> bool:
    return (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
            and isinstance(line.body[0], cst.Expr) and isinstance(line.body[0].value, cst.SimpleString | cst.ConcatenatedString))


#: how far apart two data-dependent statements may be for a breaking swap (the paper's example
#: swaps the first and the third)
_BREAKING_DISTANCE = 3


def _swappable_pairs(body: Sequence[cst.BaseStatement], preserving: bool) -> list[tuple[int, int]]:
    """Positions (i, j) of two statements of one block to swap: adjacent and data-independent
    (preserving), or up to three apart with the later one reading what the earlier one writes."""
    effects = [
        _effects(line) if isinstance(line, cst.SimpleStatementLine) and not _docstring(line) else None
        for line in body
    ]
    pairs = []
    for i, a in enumerate(effects):
        if a is None:
            continue
        if preserving:
            b = effects[i + 1] if i + 1 < len(effects) else None
            if b is None or a.opaque or b.opaque:
                continue
            if a.writes & (b.reads | b.writes) or b.writes & a.reads:
                continue
            pairs.append((i, i + 1))
            continue
        for j in range(i + 1, min(len(effects), i + 1 + _BREAKING_DISTANCE)):
            b = effects[j]
            # the later one reads what the earlier one writes: moved up, it reads a stale value
            if b is not None and (a.writes & b.reads) - {_IO, _UNKNOWN}:
                pairs.append((i, j))
    return pairs


def statement_reorder(module: cst.Module, rng: random.Random, preserving: bool) -> tuple[cst.Module, str] | None:
    blocks = [module, *collect(module, lambda n: isinstance(n, cst.IndentedBlock))]
    sites: list[tuple[cst.CSTNode, tuple[int, int]]] = []
    for block in blocks:
        body = block.body  # type: ignore[attr-defined]
        sites.extend((block, pair) for pair in _swappable_pairs(body, preserving))
    if not sites:
        return None
    block, (i, j) = rng.choice(sites)
    body = list(block.body)  # type: ignore[attr-defined]
    first, second = body[i], body[j]
    shown = [module.code_for_node(s).strip().replace("\n", "; ") for s in (first, second)]
    moved_up = second.with_changes(leading_lines=first.leading_lines)  # type: ignore[attr-defined]
    moved_down = first.with_changes(leading_lines=second.leading_lines)  # type: ignore[attr-defined]

    def build(node: cst.CSTNode) -> cst.CSTNode:
        new_body = list(node.body)  # type: ignore[attr-defined]
        new_body[i], new_body[j] = moved_up, moved_down
        return node.with_changes(body=new_body)

    kind = "data-independent" if preserving else "data-dependent"
    changed = build(block) if block is module else replace_node(module, block, build)
    assert isinstance(changed, cst.Module)
    return changed, f"swapped the {kind} statements `{shown[0]}` and `{shown[1]}`"


# -- expression reformatting -----------------------------------------------------------------------

_OPERATORS = {"+": cst.Add, "-": cst.Subtract, "*": cst.Multiply}


def _reformat_site(line: cst.CSTNode) -> bool:
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return False
    small = line.body[0]
    if (isinstance(small, cst.Assign) and len(small.targets) == 1) or (isinstance(small, cst.Return) and small.value is not None):
        value = small.value
    else:
        return False
    return isinstance(value, cst.BinaryOperation) and isinstance(value.left, cst.BinaryOperation)


def expression_reformat(module: cst.Module, rng: random.Random, preserving: bool) -> tuple[cst.Module, str] | None:
    blocks = [module, *collect(module, lambda n: isinstance(n, cst.IndentedBlock))]
    sites = [(block, index) for block in blocks for index, line in enumerate(block.body)  # type: ignore[attr-defined]
             if _reformat_site(line)]
    if not sites:
        return None
    block, index = rng.choice(sites)
    line = block.body[index]  # type: ignore[attr-defined]
    small = line.body[0]
    value = small.value
    assert isinstance(value, cst.BinaryOperation) and isinstance(value.left, cst.BinaryOperation)
    temporary = fresh_name(rng, names_in(module))
    hoisted = value.left.with_changes(lpar=[], rpar=[])
    assignment = cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(temporary))], value=hoisted)],
        leading_lines=line.leading_lines,
    )
    if preserving:
        rebuilt = value.with_changes(left=cst.Name(temporary))
        how = "moved"
    else:
        if rng.random() < 0.5:
            # the paper's example: a term of the temporary re-introduced (temp + b - c for a + b - c)
            rebuilt = value.with_changes(left=cst.BinaryOperation(cst.Name(temporary), value.left.operator,
                                                                   value.left.right.with_changes(lpar=[], rpar=[])))
        else:
            current = next((s for s, t in _OPERATORS.items() if isinstance(value.operator, t)), None)
            wrong = rng.choice([s for s in _OPERATORS if s != current])
            rebuilt = value.with_changes(left=cst.Name(temporary), operator=_OPERATORS[wrong]())
        how = "moved, then rebuilt the expression wrongly around,"
    new_line = line.with_changes(body=[small.with_changes(value=rebuilt)], leading_lines=[])
    shown = module.code_for_node(hoisted)

    def build(node: cst.CSTNode) -> cst.CSTNode:
        new_body = list(node.body)  # type: ignore[attr-defined]
        new_body[index: index + 1] = [assignment, new_line]
        return node.with_changes(body=new_body)

    changed = build(block) if block is module else replace_node(module, block, build)
    assert isinstance(changed, cst.Module)
    return changed, f"{how} `{shown}` into the temporary {temporary}"
