"""What a name means inside a module's functions, read from the syntax tree.

:class:`ModuleIndex` knows a module's top-level functions and the values of its constants (folded
with :class:`~divergent.structure.folding.Folder`, including lists that module-level code extends).
:class:`FunctionScope` knows one function: its parameters, what its local names were assigned, the
values those names may take, and which parameters an expression carries (:meth:`FunctionScope.origin`:
``date_str = date_str.replace(',', ' ')`` still carries ``date_str``), so that a pattern applied to a
local name is tied to the parameter it came from.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from divergent.structure.folding import Folder, Unknown

__all__ = ["FunctionScope", "ModuleIndex", "parameter_names"]

#: methods whose result is (a piece of) the text they are called on: the parameter flows through
_TRANSFORMS = frozenset({
    "strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "capitalize", "swapcase", "replace",
    "removeprefix", "removesuffix", "expandtabs", "encode", "decode", "normalize", "split", "rsplit",
    "splitlines", "partition", "rpartition", "zfill", "ljust", "rjust", "center", "translate", "format",
})  # fmt: skip
#: calls whose result carries their (first text) argument through
_CARRYING_CALLS = frozenset({"str", "compat_str", "unicode", "bytes", "repr", "sorted", "list", "tuple", "reversed"})


def parameter_names(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if arguments.vararg:
        names.append(arguments.vararg.arg)
    names.extend(a.arg for a in arguments.kwonlyargs)
    if arguments.kwarg:
        names.append(arguments.kwarg.arg)
    return names


def _defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    found = {a.arg: d for a, d in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults, strict=True)}
    found.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None})
    return found


def _assigned_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for item in target.elts:
            yield from _assigned_names(item.value if isinstance(item, ast.Starred) else item)


class _Bindings:
    """The expressions each name of one block of statements was given, and the lists code extends."""

    def __init__(self) -> None:
        #: name → the expressions assigned to it (in order)
        self.assigned: dict[str, list[ast.expr]] = {}
        #: name → (iterable, position) of a loop or comprehension binding it to one item of the
        #: iterable (position: its place when the loop unpacks each item, else None)
        self.loops: dict[str, list[tuple[ast.expr, int | None]]] = {}
        #: name → tuples assigned to several names at once, the name's position in them
        self.unpacked: dict[str, list[ast.expr]] = {}
        #: name → (method, argument) of `name.extend(x)`, `name.append(x)`, `name += x`
        self.extensions: dict[str, list[tuple[str, ast.expr]]] = {}

    def read(self, nodes: Iterator[ast.AST]) -> None:
        for node in nodes:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._target(target, node.value)
            elif (isinstance(node, ast.AnnAssign) and node.value is not None) or isinstance(node, ast.NamedExpr):
                self._target(node.target, node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                if isinstance(node.op, ast.Add):
                    self.extensions.setdefault(node.target.id, []).append(("extend", node.value))
                else:
                    self.assigned.setdefault(node.target.id, []).append(ast.BinOp(node.target, node.op, node.value))
            elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                if isinstance(node.target, ast.Tuple | ast.List):
                    for position, item in enumerate(node.target.elts):
                        for name in _assigned_names(item):
                            self.loops.setdefault(name, []).append((node.iter, position))
                else:
                    for name in _assigned_names(node.target):
                        self.loops.setdefault(name, []).append((node.iter, None))
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                for name in _assigned_names(node.optional_vars):
                    self.unpacked.setdefault(name, []).append(node.context_expr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.attr in ("extend", "append", "insert")
                and node.args
            ):
                self.extensions.setdefault(node.func.value.id, []).append((node.func.attr, node.args[-1]))

    def _target(self, target: ast.AST, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.assigned.setdefault(target.id, []).append(value)
        elif isinstance(target, ast.Tuple | ast.List):
            for name in _assigned_names(target):
                self.unpacked.setdefault(name, []).append(value)

    def names(self) -> set[str]:
        return set(self.assigned) | set(self.loops) | set(self.unpacked)


def _extend(values: list[Any], extensions: list[tuple[str, ast.expr]], folder: Folder) -> list[Any]:
    """The list values with every extension applied (each extension's first value)."""
    if not extensions:
        return values
    extended = []
    for value in values:
        if not isinstance(value, list | tuple):
            extended.append(value)
            continue
        items = list(value)
        for method, argument in extensions:
            found = folder.values(argument)
            if not found:
                continue
            if method == "extend" and isinstance(found[0], list | tuple):
                items.extend(found[0])
            elif method in ("append", "insert"):
                items.append(found[0])
        extended.append(items if isinstance(value, list) else tuple(items))
    return extended


class ModuleIndex:
    """A module's top-level functions and constants, from its source (never imported)."""

    def __init__(self, source: str) -> None:
        try:
            self.tree: ast.Module | None = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError):
            self.tree = None
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self._bindings = _Bindings()
        if self.tree is not None:
            for node in self.tree.body:
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.functions[node.name] = node
            self._bindings.read(self._module_level_nodes())
        self._values: dict[str, list[Any]] = {}
        self._folding: set[str] = set()
        self._scopes: dict[str, FunctionScope] = {}
        self.folder = Folder(self.constant, self.returns_of)

    def _module_level_nodes(self) -> Iterator[ast.AST]:
        """The module's statements and expressions outside any function or class body."""
        assert self.tree is not None
        stack: list[ast.AST] = list(self.tree.body)
        while stack:
            node = stack.pop(0)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                continue
            yield node
            stack.extend(ast.iter_child_nodes(node))

    def constant(self, name: str) -> list[Any]:
        """The values a module-level name may have (folded once); raises Unknown for none."""
        if name in self._values:
            return self._values[name]
        if name in self._folding:
            raise Unknown("a constant defined through itself")
        bindings = self._bindings
        if name not in bindings.assigned:
            raise Unknown(f"no constant {name}")
        self._folding.add(name)
        try:
            values = [v for node in bindings.assigned[name] for v in self.folder.values(node)]
            values = _extend(values, bindings.extensions.get(name, []), self.folder)
        finally:
            self._folding.discard(name)
        self._values[name] = values
        if not values:
            raise Unknown(f"constant {name} does not fold")
        return values

    def constant_names(self) -> list[str]:
        return list(self._bindings.assigned)

    def scope(self, name: str) -> FunctionScope | None:
        function = self.functions.get(name)
        if function is None:
            return None
        if name not in self._scopes:
            self._scopes[name] = FunctionScope(self, function)
        return self._scopes[name]

    def returns_of(self, name: str) -> list[Any]:
        """The values a module function may return, folded with its parameters unknown."""
        scope = self.scope(name)
        if scope is None or name in self._folding:
            raise Unknown(f"no function {name}")
        self._folding.add(name)
        try:
            return [
                value
                for node in ast.walk(scope.function)
                if isinstance(node, ast.Return) and node.value is not None
                for value in scope.folder.values(node.value)
            ]
        finally:
            self._folding.discard(name)


class FunctionScope:
    """One function: its parameters, local bindings, and folding and data flow inside it."""

    def __init__(
        self, module: ModuleIndex, function: ast.FunctionDef | ast.AsyncFunctionDef,
        known: dict[str, list[Any]] | None = None,
    ) -> None:
        self.module = module
        self.function = function
        self.parameters = parameter_names(function)
        #: values of parameters a caller passed (a helper folded for one call site)
        self.known = known or {}
        self._defaults = _defaults(function)
        self._bindings = _Bindings()
        self._bindings.read(node for statement in function.body for node in ast.walk(statement))
        # Functions defined inside this one see its arguments through their own parameters:
        # each call binds them, as if assigned (`helper(email)` makes `text` carry `email`).
        nested = {
            node.name: node for statement in function.body for node in ast.walk(statement)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }  # fmt: skip
        self._nested = set(nested)
        for statement in function.body:
            for node in ast.walk(statement):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in nested:
                    for name, argument in zip(parameter_names(nested[node.func.id]), node.args, strict=False):
                        self._bindings.assigned.setdefault(name, []).append(argument)
        self._locals = self._bindings.names() - set(self.parameters)
        self._folding: set[str] = set()
        self._origins: dict[str, frozenset[str]] = {}
        self.folder = Folder(self._lookup, module.returns_of)

    def _lookup(self, name: str) -> list[Any]:
        if name in self._folding:
            raise Unknown("a name defined through itself")
        bindings = self._bindings
        if name in self.parameters:
            if name in self.known:
                return self.known[name]
            default = self._defaults.get(name)
            if default is None:
                raise Unknown(f"parameter {name}")
            return self.module.folder.values(default)
        if name not in self._locals:
            return self.module.constant(name)
        self._folding.add(name)
        try:
            values = [v for node in bindings.assigned.get(name, []) for v in self.folder.values(node)]
            for iterable, position in bindings.loops.get(name, []):
                for container in self.folder.values(iterable):
                    if not isinstance(container, list | tuple | set | frozenset | dict):
                        continue
                    items = sorted(container, key=repr) if isinstance(container, set | frozenset) else list(container)
                    if position is None:
                        values.extend(items)
                    else:
                        values.extend(i[position] for i in items if isinstance(i, tuple | list) and len(i) > position)
            return _extend(values, bindings.extensions.get(name, []), self.folder)
        finally:
            self._folding.discard(name)

    def default(self, name: str) -> ast.expr | None:
        return self._defaults.get(name)

    def loop_iterables(self, name: str) -> list[ast.expr]:
        """The iterables a loop binds ``name`` to an item of."""
        return [iterable for iterable, _ in self._bindings.loops.get(name, [])]

    def origin(self, node: ast.AST | None) -> frozenset[str]:
        """The parameters whose text ``node`` carries: the parameter itself, a local assigned from
        it, a slice or a cleaned-up copy of it (``s.strip().lower()``, ``re.sub(p, '', s)``)."""
        if node is None:
            return frozenset()
        if isinstance(node, ast.Name):
            return self._name_origin(node.id)
        if isinstance(node, ast.Subscript | ast.Starred):
            return self.origin(node.value)
        if isinstance(node, ast.Call):
            callee = node.func
            if isinstance(callee, ast.Attribute):
                if callee.attr in _TRANSFORMS:
                    return self.origin(callee.value)
                if callee.attr in ("sub", "subn") and isinstance(callee.value, ast.Name) and callee.value.id in ("re", "regex"):
                    return self.origin(node.args[2]) if len(node.args) > 2 else frozenset()
                if callee.attr == "join" and node.args:
                    return self.origin(node.args[0])
                return frozenset()
            if isinstance(callee, ast.Name) and (
                callee.id in _CARRYING_CALLS or callee.id in self.module.functions or callee.id in self._nested
            ):
                found: frozenset[str] = frozenset()
                for argument in node.args[:2]:
                    found |= self.origin(argument)
                return found
            return frozenset()
        if isinstance(node, ast.BinOp):
            return self.origin(node.left) | self.origin(node.right)
        if isinstance(node, ast.JoinedStr):
            found = frozenset()
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    found |= self.origin(part.value)
            return found
        if isinstance(node, ast.IfExp):
            return self.origin(node.body) | self.origin(node.orelse)
        if isinstance(node, ast.BoolOp):
            found = frozenset()
            for value in node.values:
                found |= self.origin(value)
            return found
        return frozenset()

    def _name_origin(self, name: str) -> frozenset[str]:
        if name in self.parameters:
            return frozenset({name})
        if name not in self._locals:
            return frozenset()
        if name in self._origins:
            return self._origins[name]
        self._origins[name] = frozenset()  # a name assigned from itself carries what its first value did
        bindings = self._bindings
        found: frozenset[str] = frozenset()
        loops = [iterable for iterable, _ in bindings.loops.get(name, [])]
        for node in (*bindings.assigned.get(name, []), *loops, *bindings.unpacked.get(name, [])):
            found |= self.origin(node)
        self._origins[name] = found
        return found
