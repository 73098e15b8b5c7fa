"""Which code a proof may cover: an allow-list of syntax and names that leaves code nothing but arithmetic.

The symbolic runner runs the implementations inside CrossHair's own process, beside the descriptor
that carries the runner's account to the parent. Code that reaches a module, a frame, an attribute of
the interpreter, a descriptor or a builtin beyond arithmetic can patch CrossHair, rewrite the runner's
framing, write a forged "every path explored" on any descriptor and exit: nothing the runner says
about such code can be trusted, and no reading of its outputs can tell. So the runner's word counts
for a proof only for code that this reading shows can do nothing but compute; for such code the
runner's channel is out of reach (it can name nothing that leads to it), and that is what makes the
runner's account trustworthy. The reading is an *allow-list*: a node type, a name or a method not
listed here is refused, whatever it is; and it fails closed: every node of code that runs (the module
level, the reached functions whole) must have been examined by one of its rules, or it is refused.

What qualifies (read with :mod:`ast`, never run):

* the module: a docstring; ``from __future__ import annotations``; ``from typing import`` (or
  ``import typing``) the names of :data:`TYPING_NAMES`, used only in annotations; constants (a name
  bound to an int, bool, None, str or bytes literal, a tuple of them, or arithmetic on them); plain
  ``def`` functions (no decorator) whose defaults are such constants and whose annotations are type
  expressions. No other import, statement or expression at module level;
* the entry point and every function of the module it names, transitively: ``return``, assignment
  (to names, tuples of names, subscripts), augmented assignment, ``if``, ``while``, ``for``,
  ``break``, ``continue``, ``pass``, ``raise``, ``assert``, ``del``, ``try`` with handlers naming the
  exceptions of :data:`EXCEPTIONS` (never a bare ``except``, ``Exception`` or ``BaseException``), and
  expression statements;
* expressions: int, bool, None, str and bytes literals; arithmetic (``+ - * // % << >> & | ^ ~``,
  ``**`` by a non-negative integer literal); comparisons (``is`` only against ``None``); ``and``,
  ``or``, ``not``; conditional expressions; tuples, lists, dicts and sets and their comprehensions
  and generator expressions; subscripts and slices; ``:=``; calls of the module's qualifying
  functions, of :data:`PURE_BUILTINS`, of :data:`EXCEPTIONS`, and of the methods
  :data:`PURE_METHODS` (the list, dict, set and int methods that only compute);
* names: parameters and local variables, the module's functions and constants, and the builtins
  above; no name that starts with ``__`` anywhere (``__builtins__``, ``__import__``...).

Refused, among everything else: every other import (inside a function too), attribute reads and
writes (``x.real``, ``gen.gi_frame``), classes, lambdas, nested functions, decorators (a cache would
carry values between CrossHair's paths), ``global``/``nonlocal``, ``with``, ``match``, ``yield``,
``async``, f-strings, floats and ``/``, ``str``/``repr``/``format``/``print``/``open``/``getattr``/
``type``/``id``/``hash`` and every builtin not listed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["EXCEPTIONS", "PURE_BUILTINS", "PURE_METHODS", "QUALIFYING_CODE", "TYPING_NAMES", "unprovable"]

#: the builtins qualifying code may name: they compute on the values they are given, nothing else
PURE_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "divmod", "enumerate", "int", "isinstance", "len", "list", "max", "min",
    "range", "reversed", "sorted", "sum", "tuple", "zip", "dict", "set", "frozenset",
})  # fmt: skip
#: the exceptions qualifying code may raise and catch (catching `Exception` is refused: broad)
EXCEPTIONS = frozenset({
    "ArithmeticError", "AssertionError", "IndexError", "KeyError", "LookupError", "NotImplementedError",
    "OverflowError", "RuntimeError", "TypeError", "ValueError", "ZeroDivisionError", "Exception",
})  # fmt: skip
_BROAD = frozenset({"Exception", "BaseException"})
#: the only attributes qualifying code may use, and only to call them: methods of lists, dicts,
#: sets and ints that compute on their object (no object reachable by qualifying code has a method
#: of one of these names that does more)
PURE_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "index", "count", "reverse", "sort", "copy", "clear",
    "get", "keys", "values", "items", "setdefault", "add", "discard", "bit_length", "bit_count",
})  # fmt: skip
#: what ``typing`` may give, for annotations only
TYPING_NAMES = frozenset({
    "Any", "Optional", "Union", "Tuple", "List", "Dict", "Set", "FrozenSet", "Literal", "Sequence",
    "Iterable", "Mapping",
})  # fmt: skip
_TYPE_NAMES = frozenset({"int", "bool", "float", "complex", "str", "bytes", "list", "tuple", "dict", "set", "frozenset"})
_OPERATORS = (
    ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift, ast.BitOr, ast.BitXor,
    ast.BitAnd,
)
_LITERALS = (int, bool, str, bytes, type(None))
#: the nodes that are code (operators and contexts are not): each must be examined, or it is refused
_CODE_NODES = (
    ast.stmt, ast.expr, ast.excepthandler, ast.comprehension, ast.keyword, ast.arg, ast.arguments, ast.alias,
    ast.withitem, ast.match_case, ast.pattern,
)

#: what qualifies, in one line (a proof's limits)
QUALIFYING_CODE = (
    "code that can do nothing but compute: no import, no attribute but pure list, dict, set and int methods, "
    "no class, decorator, lambda, global state, text formatting or float, only pure builtins"
)


class _Refused(Exception):
    """The source uses something outside the allow-list (the message says what)."""


def unprovable(source: str, entry_point: str) -> str | None:
    """Why ``source`` (a module) is not code a proof may cover, or None when it is: its module level
    and ``entry_point`` with every function of the module it names stay within the allow-list."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "its source does not parse"
    try:
        _Reader(module).read(entry_point)
    except _Refused as refused:
        return str(refused)
    except RecursionError:
        return "its source is nested too deeply to read"
    return None


@dataclass
class _Scope:
    """The names a function or a comprehension binds; lookups go on to the enclosing scope."""

    names: set[str]
    parent: _Scope | None = None

    def binds(self, name: str) -> bool:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.parent
        return False


@dataclass
class _Reader:
    module: ast.Module
    #: module-level names: "function", "constant", "typing" (a name from typing), "typing module"
    bindings: dict[str, str] = field(default_factory=dict)
    functions: dict[str, list[ast.FunctionDef]] = field(default_factory=dict)
    _reached: list[str] = field(default_factory=list)
    #: the nodes this reading examined (by id): any other node of code that runs is refused
    _seen: set[int] = field(default_factory=set)

    def read(self, entry_point: str) -> None:
        for statement in self.module.body:
            self._module_statement(statement)
        if entry_point not in self.functions or self.bindings.get(entry_point) != "function":
            raise _Refused(f"{entry_point} is not a plain function defined once at module level")
        self._reached.append(entry_point)
        done: set[str] = set()
        while self._reached:
            name = self._reached.pop()
            if name in done:
                continue
            done.add(name)
            for function in self.functions[name]:
                self._function_body(function)
        self._sweep(done)

    def _sweep(self, reached: set[str]) -> None:
        """Fail closed: every node of code that runs (the module level, the reached functions
        whole, the headers of the others) must have been examined by a rule above."""
        for statement in self.module.body:
            roots: list[ast.AST] = [statement]
            if isinstance(statement, ast.FunctionDef) and statement.name not in reached:
                roots = [statement.args, *statement.decorator_list, *([statement.returns] if statement.returns else [])]
            for root in roots:
                for node in ast.walk(root):
                    if isinstance(node, _CODE_NODES) and id(node) not in self._seen:
                        where = f" on line {node.lineno}" if hasattr(node, "lineno") else ""
                        raise _Refused(f"it uses {_what(node)}{where}, which the allow-list did not read")

    def _mark(self, *nodes: ast.AST) -> None:
        self._seen.update(id(node) for node in nodes)

    # -- module level ---------------------------------------------------------------------------

    def _bind(self, name: str, kind: str) -> None:
        _plain_name(name)
        previous = self.bindings.get(name)
        if previous is not None and previous != kind:
            raise _Refused(f"the module binds {name} twice, as a {previous} and a {kind}")
        self.bindings[name] = kind

    def _module_statement(self, statement: ast.stmt) -> None:
        self._mark(statement)
        if isinstance(statement, ast.Import | ast.ImportFrom):
            self._mark(*statement.names)
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            if not isinstance(statement.value.value, str):
                raise _Refused("a module-level expression")
            self._mark(statement.value)
            return  # a docstring
        if isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module == "__future__":
            if any(alias.name != "annotations" or alias.asname for alias in statement.names):
                raise _Refused("a __future__ import other than annotations")
            return
        if isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module == "typing":
            for alias in statement.names:
                if alias.name not in TYPING_NAMES:
                    raise _Refused(f"it imports typing.{alias.name}")
                self._bind(alias.asname or alias.name, "typing")
            return
        if isinstance(statement, ast.Import) and [alias.name for alias in statement.names] == ["typing"]:
            self._bind(statement.names[0].asname or "typing", "typing module")
            return
        if isinstance(statement, ast.Import | ast.ImportFrom):
            names = [a.name for a in statement.names] if isinstance(statement, ast.Import) else [
                "." * statement.level + (statement.module or "")]
            raise _Refused(f"it imports {', '.join(names)} (a proof covers only code that imports nothing)")
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            self._module_constant(statement)
            return
        if isinstance(statement, ast.FunctionDef):
            self._function_header(statement)
            self._bind(statement.name, "function")
            self.functions.setdefault(statement.name, []).append(statement)
            return
        raise _Refused(f"{_what(statement)} at module level")

    def _module_constant(self, statement: ast.Assign | ast.AnnAssign) -> None:
        if statement.value is None or not self._constant(statement.value):
            raise _Refused("a module-level value that is not a constant (state the calls could share)")
        if isinstance(statement, ast.AnnAssign):
            self._annotation(statement.annotation)
            targets: list[ast.expr] = [statement.target]
        else:
            targets = list(statement.targets)
        for target in targets:
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            self._mark(target, *names)
            for name in names:
                if not isinstance(name, ast.Name):
                    raise _Refused("a module-level assignment to something other than a name")
                self._bind(name.id, "constant")

    def _constant(self, node: ast.expr) -> bool:
        self._mark(node)
        if isinstance(node, ast.Constant):
            return type(node.value) in _LITERALS
        if isinstance(node, ast.Name):
            return self.bindings.get(node.id) == "constant"
        if isinstance(node, ast.UnaryOp):
            return self._constant(node.operand)
        if isinstance(node, ast.BinOp):
            return _operator_problem(node) is None and self._constant(node.left) and self._constant(node.right)
        if isinstance(node, ast.Tuple):
            return all(self._constant(item) for item in node.elts)
        return False

    def _function_header(self, function: ast.FunctionDef) -> None:
        """What runs when the ``def`` runs: decorators, defaults and (eagerly, or later by CrossHair)
        annotations."""
        if function.decorator_list:
            raise _Refused(f"the decorator on {function.name} (a proof covers plain functions only; a cache "
                           "would carry values from one explored path to the next)")
        if getattr(function, "type_params", None):
            raise _Refused(f"type parameters on {function.name}")
        arguments = function.args
        self._mark(arguments, *_arguments(arguments))
        for default in [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]:
            if not self._constant(default):
                raise _Refused(f"a default value of {function.name} that is not a constant")
        for argument in _arguments(arguments):
            _plain_name(argument.arg)
            if argument.annotation is not None:
                self._annotation(argument.annotation)
        if function.returns is not None:
            self._annotation(function.returns)

    def _annotation(self, node: ast.expr, depth: int = 0) -> None:
        """A type expression (CrossHair evaluates annotations, strings included)."""
        self._mark(node)
        if isinstance(node, ast.Name):
            if (node.id in _TYPE_NAMES and node.id not in self.bindings) or self.bindings.get(node.id) == "typing":
                return
        elif isinstance(node, ast.Attribute):
            if (isinstance(node.value, ast.Name) and self.bindings.get(node.value.id) == "typing module"
                    and node.attr in TYPING_NAMES):
                self._mark(node.value)
                return
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, str) and depth < 3:
                try:
                    inner = ast.parse(node.value.strip(), mode="eval").body
                except (SyntaxError, ValueError):
                    raise _Refused(f"the annotation {node.value!r} does not parse") from None
                self._annotation(inner, depth + 1)
                return
            if node.value is None or node.value is Ellipsis or type(node.value) in (int, bool):
                return
        elif isinstance(node, ast.Subscript):
            self._annotation(node.value, depth)
            self._annotation(node.slice, depth)
            return
        elif isinstance(node, ast.Tuple | ast.List):
            for item in node.elts:
                self._annotation(item, depth)
            return
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            self._annotation(node.left, depth)
            self._annotation(node.right, depth)
            return
        raise _Refused(f"the annotation {_unparse(node)} is not a plain type")

    # -- function bodies ------------------------------------------------------------------------

    def _function_body(self, function: ast.FunctionDef) -> None:
        scope = _Scope(_bound_in_function(function))
        for statement in function.body:
            self._statement(statement, scope)

    def _statement(self, node: ast.stmt, scope: _Scope) -> None:
        self._mark(node)
        if isinstance(node, ast.Return):
            if node.value is not None:
                self._expression(node.value, scope)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self._target(target, scope)
            self._expression(node.value, scope)
        elif isinstance(node, ast.AugAssign):
            problem = _operator_problem(node)
            if problem:
                raise _Refused(problem)
            self._target(node.target, scope)
            self._expression(node.value, scope)
        elif isinstance(node, ast.AnnAssign):
            self._annotation(node.annotation)
            self._target(node.target, scope)
            if node.value is not None:
                self._expression(node.value, scope)
        elif isinstance(node, ast.If | ast.While):
            self._expression(node.test, scope)
            self._statements([*node.body, *node.orelse], scope)
        elif isinstance(node, ast.For):
            self._target(node.target, scope)
            self._expression(node.iter, scope)
            self._statements([*node.body, *node.orelse], scope)
        elif isinstance(node, ast.Break | ast.Continue | ast.Pass):
            pass
        elif isinstance(node, ast.Raise):
            for part in (node.exc, node.cause):
                if part is not None:
                    self._expression(part, scope)
        elif isinstance(node, ast.Assert):
            self._expression(node.test, scope)
            if node.msg is not None:
                self._expression(node.msg, scope)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self._target(target, scope)
        elif isinstance(node, ast.Try):
            for handler in node.handlers:
                self._handler(handler, scope)
            self._statements([*node.body, *node.orelse, *node.finalbody], scope)
        elif isinstance(node, ast.Expr):
            self._expression(node.value, scope)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            raise _Refused("it keeps state across calls (global or nonlocal)")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            raise _Refused("it imports a module inside a function (a proof covers only code that imports nothing)")
        else:
            raise _Refused(f"it uses {_what(node)}")

    def _statements(self, nodes: Iterable[ast.stmt], scope: _Scope) -> None:
        for node in nodes:
            self._statement(node, scope)

    def _handler(self, handler: ast.ExceptHandler, scope: _Scope) -> None:
        self._mark(handler)
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        self._mark(*(node for node in [caught, *names] if node is not None))
        for name in names:
            if not isinstance(name, ast.Name):
                raise _Refused("it catches something other than a named exception")
            if name.id in _BROAD or name.id not in EXCEPTIONS:
                why = "a broad except could swallow an error of the symbolic model" if name.id in _BROAD else (
                    f"it catches {name.id}")
                raise _Refused(why)
            self._name(name, scope)
        if handler.name is not None:
            _plain_name(handler.name)
        self._statements(handler.body, scope)

    def _target(self, node: ast.expr, scope: _Scope) -> None:
        self._mark(node)
        if isinstance(node, ast.Name):
            _plain_name(node.id)
        elif isinstance(node, ast.Tuple | ast.List):
            for item in node.elts:
                self._target(item, scope)
        elif isinstance(node, ast.Starred):
            self._target(node.value, scope)
        elif isinstance(node, ast.Subscript):
            self._expression(node.value, scope)
            self._expression(node.slice, scope)
        else:
            raise _Refused(f"it assigns to {_unparse(node)} (only names and subscripts qualify)")

    def _expression(self, node: ast.expr, scope: _Scope) -> None:
        self._mark(node)
        if isinstance(node, ast.Constant):
            if type(node.value) in (float, complex):
                raise _Refused(f"it uses the number {node.value!r} (floats are not modelled exactly)")
            if type(node.value) not in _LITERALS:
                raise _Refused(f"it uses the constant {node.value!r}")
        elif isinstance(node, ast.Name):
            self._name(node, scope)
        elif isinstance(node, ast.BinOp):
            problem = _operator_problem(node)
            if problem:
                raise _Refused(problem)
            self._expressions([node.left, node.right], scope)
        elif isinstance(node, ast.UnaryOp):
            self._expression(node.operand, scope)
        elif isinstance(node, ast.BoolOp):
            self._expressions(node.values, scope)
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for position, operator in enumerate(node.ops):
                if isinstance(operator, ast.Is | ast.IsNot) and not any(
                        _is_none(side) for side in operands[position:position + 2]):
                    raise _Refused("it compares with `is` other than against None (identity is not modelled)")
            self._expressions(operands, scope)
        elif isinstance(node, ast.IfExp):
            self._expressions([node.test, node.body, node.orelse], scope)
        elif isinstance(node, ast.Call):
            self._call(node, scope)
        elif isinstance(node, ast.Subscript):
            self._expressions([node.value, node.slice], scope)
        elif isinstance(node, ast.Slice):
            self._expressions([part for part in (node.lower, node.upper, node.step) if part is not None], scope)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            self._expressions(node.elts, scope)
        elif isinstance(node, ast.Dict):
            if any(key is None for key in node.keys):
                raise _Refused("it unpacks a mapping with **")
            self._expressions([*(k for k in node.keys if k is not None), *node.values], scope)
        elif isinstance(node, ast.Starred):
            self._expression(node.value, scope)
        elif isinstance(node, ast.NamedExpr):
            self._mark(node.target)
            _plain_name(node.target.id)
            self._expression(node.value, scope)
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            self._comprehension(node, scope)
        elif isinstance(node, ast.JoinedStr | ast.FormattedValue):
            raise _Refused("it formats values as text")
        elif isinstance(node, ast.Attribute):
            raise _Refused(f"it reads the attribute .{node.attr} (only calls of {_METHODS_TEXT} qualify)")
        else:
            raise _Refused(f"it uses {_what(node)}")

    def _expressions(self, nodes: Iterable[ast.expr], scope: _Scope) -> None:
        for node in nodes:
            self._expression(node, scope)

    def _call(self, node: ast.Call, scope: _Scope) -> None:
        function = node.func
        if isinstance(function, ast.Attribute):
            self._mark(function)
            if function.attr not in PURE_METHODS:
                raise _Refused(f"it calls the method .{function.attr} (only {_METHODS_TEXT} qualify)")
            self._expression(function.value, scope)
        else:
            self._expression(function, scope)
        self._expressions(node.args, scope)
        for keyword in node.keywords:
            self._mark(keyword)
            if keyword.arg is None:
                raise _Refused("it passes keyword arguments with **")
            self._expression(keyword.value, scope)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, scope: _Scope) -> None:
        inner = _Scope(set(), scope)
        for position, generator in enumerate(node.generators):
            self._mark(generator)
            if generator.is_async:
                raise _Refused("it uses async comprehensions")
            # The first iterable is evaluated in the enclosing scope, the rest in the comprehension's.
            self._expression(generator.iter, scope if position == 0 else inner)
            for name in _stored_names(generator.target):
                inner.names.add(name)
            self._target(generator.target, inner)
            self._expressions(generator.ifs, inner)
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        self._expressions(parts, inner)

    def _name(self, node: ast.Name, scope: _Scope) -> None:
        name = node.id
        _plain_name(name)
        if scope.binds(name):
            return
        kind = self.bindings.get(name)
        if kind == "function":
            self._reached.append(name)
            return
        if kind == "constant":
            return
        if kind is not None:
            raise _Refused(f"it uses {name} outside an annotation")
        if name in PURE_BUILTINS or name in EXCEPTIONS:
            return
        raise _Refused(f"it uses {name}")


_METHODS_TEXT = "list, dict, set and int methods that only compute"


def _bound_in_function(function: ast.FunctionDef) -> set[str]:
    """The names local to ``function``: its parameters and every name it binds, outside the targets
    of comprehensions (theirs) and including ``:=`` targets inside them (the function's)."""
    names = {argument.arg for argument in _arguments(function.args)}
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.comprehension):
            stack.append(node.iter)
            stack.extend(node.ifs)
            continue
        if isinstance(node, ast.NamedExpr):
            names.add(node.target.id)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        stack.extend(ast.iter_child_nodes(node))
    return names


def _stored_names(target: ast.expr) -> list[str]:
    return [node.id for node in ast.walk(target) if isinstance(node, ast.Name)]


def _arguments(arguments: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *extra]


def _plain_name(name: str) -> None:
    if name.startswith("__"):
        raise _Refused(f"it uses the name {name}")


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _operator_problem(node: ast.BinOp | ast.AugAssign) -> str | None:
    if isinstance(node.op, ast.Div):
        return "it divides with / (a float)"
    if not isinstance(node.op, _OPERATORS):
        return f"it uses the operator {type(node.op).__name__}"
    if isinstance(node.op, ast.Pow):
        exponent = node.right if isinstance(node, ast.BinOp) else node.value
        if not (isinstance(exponent, ast.Constant) and type(exponent.value) is int and exponent.value >= 0):
            return "it raises to a power that may be negative (a float)"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and (
            isinstance(node.left.value, str | bytes)):
        return "it formats values as text (%)"
    return None


def _what(node: ast.AST) -> str:
    names = {
        "ClassDef": "a class", "Lambda": "a lambda", "FunctionDef": "a nested function", "With": "with",
        "AsyncFunctionDef": "async code", "Await": "await", "Yield": "yield", "YieldFrom": "yield from",
        "Match": "match", "TryStar": "except*",
    }
    kind = "statements" if isinstance(node, ast.stmt) else "expressions"
    return names.get(type(node).__name__, f"{type(node).__name__} {kind}")


def _unparse(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - only the message suffers
        return type(node).__name__
    return text if len(text) <= 60 else text[:59] + "…"
