"""What one module defines and what each definition reads, from its syntax tree (never run).

A module is cut into **symbols**, each with a fingerprint of its own code and the names it reads:

* a function (``f``) or a method (``C.m``): its decorators, signature and body (docstrings left
  out: they do not change what the code does; the names its annotations read are not reads: an
  annotation is not run when the function is called);
* a class (``C``): its bases, decorators and the statements of its body that are not methods; a
  class-level assignment is also a symbol of its own (``C.X``);
* a module-level binding: an assignment (``SEP = "-"``), an import (``json`` bound by ``import json``);
* the module's other top-level statements together (``<module code>``: calls run at import time).

References are what a symbol reads from outside itself: module-level names (less what the code
binds locally), ``alias.attr`` chains on imported modules, and, in a method, ``self.x``/``cls.x``
(the class's own attribute ``x``). :mod:`divergent.changes.reach` resolves them across the
repository's modules."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

__all__ = ["MODULE_CODE", "Binding", "ModuleSymbols", "Symbol", "module_symbols"]

#: the name of a module's top-level statements that bind nothing (calls run at import time)
MODULE_CODE = "<module code>"

FunctionLike = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@dataclass(frozen=True)
class Binding:
    """What an import binds a name to: a module of the repository (``module``, ``name`` None) or a
    name inside one (``from module import name``; ``name`` "*" for a star import)."""

    module: str
    name: str | None = None


@dataclass
class Symbol:
    """One definition of a module (see the module docstring)."""

    #: ``f``, ``C``, ``C.m``, ``C.X``, ``SEP``, ``json``, ``<module code>``
    qualname: str
    #: "function", "method", "class", "attribute" (a class-level assignment), "value" (a module-level
    #: assignment), "import", "code"
    kind: str
    #: the symbol's own code with positions and docstrings left out
    fingerprint: str
    #: the same without the symbol's own name (how a renamed function is recognized)
    body_print: str = ""
    line: int = 0
    #: module-level names read (not bound locally)
    names: set[str] = field(default_factory=set)
    #: ``alias.attr`` chains read: (the module-level name, the attributes after it)
    chains: set[tuple[str, ...]] = field(default_factory=set)
    #: a method's ``self.x``/``cls.x``/``C.x`` reads: the attribute names
    own_attributes: set[str] = field(default_factory=set)
    #: what an import binds (kind "import")
    binding: Binding | None = None
    #: a function's or method's syntax tree
    node: FunctionLike | None = None
    #: a method's class (its qualname), a class attribute's class
    owner: str | None = None
    #: a method's decorators' names (staticmethod, classmethod, property...)
    decorators: tuple[str, ...] = ()


@dataclass
class ModuleSymbols:
    """A module's symbols by qualname, and its classes' syntax trees."""

    module: str
    path: str
    symbols: dict[str, Symbol] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)

    def functions(self) -> Iterator[Symbol]:
        return (s for s in self.symbols.values() if s.kind in ("function", "method"))


def _strip_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:] or [ast.Pass()]
    return body


def _without_docstrings(node: ast.AST) -> ast.AST:
    """A copy of ``node`` whose functions and classes have no docstring (positions dropped)."""
    import copy

    node = copy.deepcopy(node)
    for inner in ast.walk(node):
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            inner.body = _strip_docstring(inner.body)
    return node


def _print(node: ast.AST) -> str:
    return ast.dump(_without_docstrings(node), annotate_fields=False, include_attributes=False)


def _body_print(node: ast.AST, name: str) -> str:
    """The fingerprint with the definition's own name (and its recursive calls) blanked."""
    renamed = _without_docstrings(node)
    if isinstance(renamed, ast.FunctionDef | ast.AsyncFunctionDef):
        renamed.name = "_"
    for inner in ast.walk(renamed):
        if isinstance(inner, ast.Name) and inner.id == name:
            inner.id = "_"
    return ast.dump(renamed, annotate_fields=False, include_attributes=False)


class _Reads(ast.NodeVisitor):
    """The names a piece of code reads that it does not bind itself."""

    def __init__(self, class_name: str | None = None, self_names: Iterable[str] = ()) -> None:
        self.loads: set[str] = set()
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        self.chains: set[tuple[str, ...]] = set()
        self.heads: set[str] = set()
        self.own: set[str] = set()
        self.class_name = class_name
        self.self_names = set(self_names)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loads.add(node.id)
        else:
            self.bound.add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain: list[str] = []
        inner: ast.expr = node
        while isinstance(inner, ast.Attribute):
            chain.insert(0, inner.attr)
            inner = inner.value
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
            # ``alias.attr``: the head is read through the chain (resolved by its attributes)
            if inner.id in self.self_names or inner.id == self.class_name:
                self.own.add(chain[0])
            self.chains.add((inner.id, *chain))
            self.heads.add(inner.id)
        else:
            self.visit(inner)

    def visit_Global(self, node: ast.Global) -> None:
        self.declared_global.update(node.names)

    def visit_arg(self, node: ast.arg) -> None:
        # an annotation is not run when the function is called: what it names is not reached
        self.bound.add(node.arg)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)

    def _binds(self, name: str) -> None:
        self.bound.add(name)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._binds(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._binds(node.name)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            self._binds((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._binds(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self._binds(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self._binds(node.name)

    def free(self) -> set[str]:
        """Names read and not bound here (a ``global`` declaration makes a name the module's)."""
        return (self.loads - self.bound) | (self.loads & self.declared_global)

    def free_chains(self) -> set[tuple[str, ...]]:
        """The chains whose head is not bound here."""
        local = self.bound - self.declared_global
        return {chain for chain in self.chains if chain[0] not in local}


def _reads(nodes: Iterable[ast.AST], *, class_name: str | None = None, self_names: Iterable[str] = (),
           local: bool = True) -> _Reads:
    reads = _Reads(class_name, self_names)
    for node in nodes:
        reads.visit(node)
    if not local:
        reads.bound = set()
    return reads


def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[str, ...]:
    names = []
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.append(ast.unparse(target))
    return tuple(names)


def _function_symbol(node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, kind: str,
                     owner: ast.ClassDef | None = None) -> Symbol:
    self_names: list[str] = []
    decorators = _decorator_names(node)
    positional = [*node.args.posonlyargs, *node.args.args]
    if owner is not None and positional and "staticmethod" not in decorators:
        self_names.append(positional[0].arg)
    # the decorators and defaults are evaluated where the function is defined: they read module names
    outside = _reads([*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d)],
                     local=False)
    inside = _reads([node.args, *node.body], class_name=owner.name if owner else None, self_names=self_names)
    return Symbol(
        qualname=qualname, kind=kind, fingerprint=_print(node), body_print=_body_print(node, node.name),
        line=node.lineno, names=inside.free() | outside.loads, chains=inside.free_chains() | outside.chains,
        own_attributes=inside.own, node=node, owner=owner.name if owner else None, decorators=decorators,
    )


def _value_symbol(qualname: str, kind: str, statements: list[ast.stmt], owner: str | None = None) -> Symbol:
    reads = _reads(statements, local=False)
    return Symbol(qualname=qualname, kind=kind, fingerprint="\n".join(_print(s) for s in statements),
                  line=getattr(statements[0], "lineno", 1), names=reads.loads, chains=reads.chains, owner=owner)


def _assigned_names(statement: ast.stmt) -> list[str]:
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
        targets = [statement.target]
    names = []
    for target in targets:
        for inner in ast.walk(target):
            if isinstance(inner, ast.Name):
                names.append(inner.id)
    return names


def _package_of(module: str, is_package: bool) -> list[str]:
    return module.split(".") if is_package else module.split(".")[:-1]


def _absolute(module: str | None, level: int, here: str, is_package: bool) -> str:
    """The absolute module name of ``from <level dots><module> import ...`` in module ``here``."""
    if level == 0:
        return module or ""
    parts = _package_of(here, is_package)
    parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*parts, *([module] if module else [])])


class _ModuleReader:
    def __init__(self, module: str, path: str, is_package: bool) -> None:
        self.found = ModuleSymbols(module, path)
        self.is_package = is_package
        self.bindings: dict[str, list[ast.stmt]] = {}
        self.code: list[ast.stmt] = []

    def read(self, tree: ast.Module) -> ModuleSymbols:
        body = tree.body
        self._statements(body[1:] if _strip_docstring(body) is not body else body)
        for name, statements in self.bindings.items():
            if name not in self.found.symbols:
                self.found.symbols[name] = _value_symbol(name, "value", statements)
        if self.code:
            self.found.symbols[MODULE_CODE] = _value_symbol(MODULE_CODE, "code", self.code)
        return self.found

    def _statements(self, statements: Iterable[ast.stmt]) -> None:
        for statement in statements:
            match statement:
                case ast.FunctionDef() | ast.AsyncFunctionDef():
                    self._add(_function_symbol(statement, statement.name, "function"))
                case ast.ClassDef():
                    self._class(statement, statement.name)
                case ast.Import() | ast.ImportFrom():
                    self._import(statement)
                case ast.Assign(targets=[ast.Name(id=name)], value=ast.Lambda() as lambda_node):
                    reads = _reads([lambda_node])
                    self._add(Symbol(qualname=name, kind="function", fingerprint=_print(statement),
                                     body_print=_body_print(lambda_node, name), line=statement.lineno,
                                     names=reads.free(), chains=reads.free_chains(), node=lambda_node))
                case ast.Assign() | ast.AnnAssign() | ast.AugAssign():
                    names = _assigned_names(statement)
                    for name in names:
                        self.bindings.setdefault(name, []).append(statement)
                    if not names:
                        self.code.append(statement)
                case ast.If() | ast.Try() | ast.TryStar() | ast.With():
                    # version-dependent definitions: what the block binds is a symbol each; the
                    # block's own tests and calls are module code
                    self.code.append(_shell(statement))
                    for block in _blocks(statement):
                        self._statements(block)
                case _:
                    self.code.append(statement)

    def _add(self, symbol: Symbol) -> None:
        earlier = self.found.symbols.get(symbol.qualname)
        if earlier is not None:
            # bound twice (an ``if``'s branches): one symbol reading what both read
            symbol.fingerprint = earlier.fingerprint + "\n" + symbol.fingerprint
            symbol.body_print = earlier.body_print + "\n" + symbol.body_print
            symbol.names |= earlier.names
            symbol.chains |= earlier.chains
        self.found.symbols[symbol.qualname] = symbol

    def _import(self, statement: ast.Import | ast.ImportFrom) -> None:
        for alias in statement.names:
            if isinstance(statement, ast.Import):
                if alias.asname:
                    bound, binding = alias.asname, Binding(alias.name)
                else:
                    bound = alias.name.split(".")[0]
                    binding = Binding(bound)
            else:
                source = _absolute(statement.module, statement.level, self.found.module, self.is_package)
                bound = alias.asname or alias.name
                binding = Binding(source, alias.name)
                if alias.name == "*":
                    bound = f"* from {source}"
            self._add(Symbol(qualname=bound, kind="import", fingerprint=f"{binding.module}:{binding.name}",
                             line=statement.lineno, binding=binding))

    def _class(self, node: ast.ClassDef, qualname: str) -> None:
        self.found.classes[qualname] = node
        shell = ast.ClassDef(name=node.name, bases=node.bases, keywords=node.keywords, body=[],
                             decorator_list=node.decorator_list)
        if hasattr(node, "type_params"):
            shell.type_params = node.type_params
        rest: list[ast.stmt] = []
        for statement in _strip_docstring(node.body):
            match statement:
                case ast.FunctionDef() | ast.AsyncFunctionDef():
                    self._add(_function_symbol(statement, f"{qualname}.{statement.name}", "method", owner=node))
                case ast.ClassDef():
                    self._class(statement, f"{qualname}.{statement.name}")
                case ast.Assign() | ast.AnnAssign() | ast.AugAssign() if _assigned_names(statement):
                    for name in _assigned_names(statement):
                        self._add(_value_symbol(f"{qualname}.{name}", "attribute", [statement], owner=qualname))
                    rest.append(statement)
                case _:
                    rest.append(statement)
        shell.body = rest or [ast.Pass()]
        reads = _reads([*node.bases, *(k.value for k in node.keywords), *node.decorator_list, *rest], local=False)
        self._add(Symbol(qualname=qualname, kind="class", fingerprint=_print(shell), line=node.lineno,
                         names=reads.loads, chains=reads.chains, decorators=_decorator_names(node)))


def _blocks(statement: ast.If | ast.Try | ast.TryStar | ast.With) -> list[list[ast.stmt]]:
    blocks = [statement.body, getattr(statement, "orelse", [])]
    if isinstance(statement, ast.Try | ast.TryStar):
        blocks.extend(handler.body for handler in statement.handlers)
        blocks.append(statement.finalbody)
    return blocks


def _shell(statement: ast.If | ast.Try | ast.TryStar | ast.With) -> ast.stmt:
    """The block without what it defines (its test, its handlers' types, its context managers)."""
    if isinstance(statement, ast.If):
        return ast.Expr(value=statement.test, lineno=statement.lineno)
    if isinstance(statement, ast.With):
        return ast.Expr(value=ast.Tuple(elts=[item.context_expr for item in statement.items], ctx=ast.Load()),
                        lineno=statement.lineno)
    types = [handler.type for handler in statement.handlers if handler.type is not None]
    return ast.Expr(value=ast.Tuple(elts=types, ctx=ast.Load()), lineno=statement.lineno)


def module_symbols(tree: ast.Module, module: str, path: str, *, is_package: bool = False) -> ModuleSymbols:
    """The symbols of a module (``module``: its dotted name, ``path``: its file in the repository,
    ``is_package``: an ``__init__.py``, whose relative imports start from itself)."""
    return _ModuleReader(module, path, is_package).read(tree)
