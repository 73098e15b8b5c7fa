"""An input format read from how programs read their input, without running them.

Each program's source is read for the calls that consume stdin, in order, inside the loops that
repeat them: ``n = int(input())``, ``a = list(map(int, input().split()))``, ``for _ in
range(n):``, ``cin >> n >> m``, ``scanf("%d %lld", ...)``, ``for (int i = 0; i < n; i++) cin >>
a[i]``, ``while (t--)``, ``sc.nextInt()``, ``Integer.parseInt(st.nextToken())``. A read into a
variable names the token; a loop bounded by a variable read before makes a list or a repeat counted
by it. What a program's reading says beyond that (``sys.stdin.read().split()`` indexed by hand, a
read inside a condition) is left out: such a program gives no format, and another program or the
examples are asked. Python is read with :mod:`ast`; C, C++ and Java by a small scanner of their
statements (:mod:`divergent.formats.reading_c`).

:func:`format_from_programs` asks every program and keeps the shape most of them agree on.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence

from divergent.formats.model import ANY, Expr, InputFormat, Kind, Line, Node, Repeat, Token, TokenType
from divergent.formats.reading_c import c_family_format

__all__ = ["format_from_programs", "program_format", "python_format", "shape"]

_INT, _FLOAT, _WORD = TokenType(Kind.INT), TokenType(Kind.FLOAT), TokenType(Kind.WORD)
_CONVERTERS = {"int": _INT, "float": _FLOAT, "str": _WORD}
#: statements of a Python program read (a bigger one is not a contest solution)
_MAX_STATEMENTS = 5000


class _Unreadable(Exception):
    pass


def program_format(source: str, language: str) -> InputFormat | None:
    """The format one program reads (None: its reading could not be followed)."""
    try:
        if language == "python":
            return python_format(source)
        if language in ("c", "cpp", "java"):
            return c_family_format(source, language)
    except (_Unreadable, RecursionError, ValueError, SyntaxError):
        return None
    return None


def shape(fmt: InputFormat) -> str:
    """A format without names and bounds (how programs agree on what they read)."""
    def body(nodes: tuple[Node, ...]) -> str:
        out = []
        for node in nodes:
            if isinstance(node, Repeat):
                out.append(f"R{'*' if node.count.is_any else ('c' if node.count.variable else node.count.constant)}"
                           f"({body(node.body)})")
            else:
                out.append("L(" + ",".join(t.type.kind.value[0] + ("*" if t.count else "") for t in node.tokens) + ")")
        return "".join(out)
    return body(fmt.body)


def format_from_programs(programs: Sequence[tuple[str, str]]) -> InputFormat | None:
    """The format most programs (source, language) read, the most structured on a tie."""
    formats = [fmt for source, language in programs if (fmt := program_format(source, language)) is not None]
    if not formats:
        return None
    votes = Counter(shape(fmt) for fmt in formats)
    best = max(formats, key=lambda fmt: (votes[shape(fmt)], len(fmt.count_variables()), fmt.size()))
    agree = votes[shape(best)]
    note = f"read from how {agree} of {len(programs)} program(s) read their input"
    return InputFormat(best.body, origin="programs", notes=(note,))


# -- Python ------------------------------------------------------------------------------------


class _Python:
    """Follows a Python script's reads in order (top level, ``main()``, and the functions it calls)."""

    def __init__(self, tree: ast.Module) -> None:
        self.functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        self.readers: set[str] = {"input"}  # names bound to a line reader (input = sys.stdin.readline)
        self.lambdas: dict[str, ast.expr] = {}  # I = lambda: map(int, input().split())
        self.defined: set[str] = set()
        self.statements = 0
        self.inlined: set[str] = set()
        #: names whose line is split later (x = input() ... x.split()): lists, not words
        self.split: set[str] = {
            node.func.value.id for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr == "split" and isinstance(node.func.value, ast.Name)}

    # what an expression reads: one line as (tokens), or None when it reads nothing
    def line_of(self, expr: ast.expr, names: list[str]) -> Line | None:
        kind, listed = self._reads(expr)
        if kind is None:
            return None
        if not listed and kind is _WORD and len(names) == 1 and names[0] in self.split:
            listed = True
        if listed and len(names) > 1:  # a, b = map(int, input().split())
            return Line(tuple(Token(kind, name=name or None) for name in names))
        if listed:
            return Line((Token(kind, name=names[0] if len(names) == 1 and names[0] else None, count=ANY),))
        if len(names) > 1:
            return Line(tuple(Token(kind, name=name or None) for name in names))
        return Line((Token(kind, name=names[0] if names and names[0] else None),))

    def _reads(self, expr: ast.expr) -> tuple[TokenType | None, bool]:
        """(the tokens' type, whether it is a list) of an expression that reads one line."""
        if isinstance(expr, ast.Call):
            func = expr.func
            name = _call_name(func)
            if name in self.readers or name in ("sys.stdin.readline", "stdin.readline"):
                return _WORD, False
            if name in self.lambdas:
                return self._reads(self.lambdas[name])
            if name in _CONVERTERS and expr.args:
                inner, listed = self._reads(expr.args[0])
                if inner is not None and not listed:
                    return _CONVERTERS[name], False
            if name in ("list", "tuple", "sorted", "set") and expr.args:
                return self._reads(expr.args[0])
            if name == "map" and len(expr.args) == 2:
                inner, _ = self._reads(expr.args[1])
                if inner is not None:
                    return _CONVERTERS.get(_call_name(expr.args[0]), _WORD), True
            if isinstance(func, ast.Attribute) and func.attr in ("strip", "rstrip", "lstrip", "lower", "upper"):
                return self._reads(func.value)
            if isinstance(func, ast.Attribute) and func.attr == "split":
                inner, _ = self._reads(func.value)
                if inner is not None:
                    return _WORD, True
            if name in ("re.split", "split") and len(expr.args) >= 2 and self._reads(expr.args[1])[0] is not None:
                return _WORD, True
        if isinstance(expr, ast.ListComp | ast.GeneratorExp) and len(expr.generators) == 1:
            generator = expr.generators[0]
            inner, listed = self._reads(generator.iter)
            if inner is not None and listed and isinstance(expr.elt, ast.Call):
                return _CONVERTERS.get(_call_name(expr.elt.func), _WORD), True
            if inner is not None and listed:
                return _WORD, True
        if isinstance(expr, ast.Subscript):  # input()[:-1], input().split()[0]
            return self._reads(expr.value)[0], False
        return None, False

    def reads_anything(self, node: ast.AST) -> bool:
        for child in ast.walk(node):
            if isinstance(child, ast.Call):
                name = _call_name(child.func)
                if name in self.readers or name in self.lambdas or name.startswith(("sys.stdin", "stdin.")) \
                        or name in ("open",):
                    return True
        return False

    def block(self, body: list[ast.stmt]) -> list[Node]:
        nodes: list[Node] = []
        for statement in body:
            self.statements += 1
            if self.statements > _MAX_STATEMENTS:
                raise _Unreadable("too long")
            nodes.extend(self.statement(statement))
        return nodes

    def statement(self, node: ast.stmt) -> list[Node]:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if value is None:
                return []
            if isinstance(value, ast.Attribute | ast.Name) and _call_name(value) in (
                    "sys.stdin.readline", "stdin.readline", "input"):
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.readers.add(target.id)
                return []
            if isinstance(value, ast.Lambda):
                for target in targets:
                    if isinstance(target, ast.Name) and self.reads_anything(value.body):
                        self.lambdas[target.id] = value.body
                return []
            names = _target_names(targets[0]) if len(targets) == 1 else []
            repeated = self._comprehension_repeat(value, names)
            if repeated is not None:
                return [repeated]
            line = self.line_of(value, names)
            if line is not None:
                for token in line.tokens:
                    if token.name and token.count is None:
                        self.defined.add(token.name)
                return [line]
            if isinstance(value, ast.Tuple) and len(names) == len(value.elts):  # n, a = int(input()), input()
                lines = [self.line_of(element, [name]) for element, name in zip(value.elts, names, strict=True)]
                if all(line is not None for line in lines) or not self.reads_anything(value):
                    return [line for line in lines if line is not None]
            return self.embedded(value)
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Call) and _call_name(node.value.func) in self.functions:
                return self.call(_call_name(node.value.func))
            line = self.line_of(node.value, [])
            if line is not None:
                return [line]
            return self.embedded(node.value)
        if isinstance(node, ast.For):
            count = self._range_count(node.iter)
            if count is None:
                if self.reads_anything(node):
                    raise _Unreadable("a loop this reader cannot count")
                return []
            prefix: list[Node] = []
            if isinstance(count, Line):  # for _ in range(int(input())): the count is read here
                prefix, count = [count], Expr(variable=count.tokens[0].name)
            body = self.block(node.body)
            return [*prefix, Repeat(count, tuple(body))] if body else prefix
        if isinstance(node, ast.While):
            count = self._while_count(node)
            if count is not None:
                body = self.block(node.body)
                return [Repeat(count, tuple(body))] if body else []
            if self.reads_anything(node):
                raise _Unreadable("a while loop that reads")
            return []
        if isinstance(node, ast.If):
            if _is_main_guard(node.test):
                return self.block(node.body)
            if self.reads_anything(node):
                raise _Unreadable("a read inside a condition")
            return []
        if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Import | ast.ImportFrom):
            return []
        if isinstance(node, ast.With | ast.Try):
            return self.block(node.body)
        if self.reads_anything(node):
            raise _Unreadable("a read this reader does not follow")
        return []

    def embedded(self, expr: ast.expr) -> list[Node]:
        """The lines read inside an expression (``print(...) if sum(map(int, input().split())) <=
        int(input()) else ...``), in source order; unnamed."""
        found: list[tuple[int, int, Line]] = []

        def visit(node: ast.AST) -> None:
            if isinstance(node, ast.expr):
                line = self.line_of(node, [])
                if line is not None:
                    found.append((node.lineno, node.col_offset, line))
                    return
                if isinstance(node, ast.Call) and _call_name(node.func) in self.functions | self.lambdas.keys():
                    raise _Unreadable("a read inside a function called from an expression")
                if isinstance(node, ast.Lambda | ast.ListComp | ast.GeneratorExp | ast.DictComp | ast.SetComp) \
                        and self.reads_anything(node):
                    raise _Unreadable("a read repeated inside an expression")
            for child in ast.iter_child_nodes(node):
                visit(child)

        visit(expr)
        found.sort(key=lambda item: (item[0], item[1]))
        return [line for _, _, line in found]

    def call(self, name: str) -> list[Node]:
        if name in self.inlined:
            return []
        self.inlined.add(name)
        return self.block(self.functions[name].body)

    def _range_count(self, expr: ast.expr) -> Expr | Line | None:
        if not (isinstance(expr, ast.Call) and _call_name(expr.func) == "range" and expr.args):
            return None
        args = expr.args
        stop = args[0] if len(args) == 1 else args[1]
        start = _constant(args[0]) if len(args) > 1 else 0
        if start is None:
            return None
        line = self.line_of(stop, ["t"]) if self.reads_anything(stop) else None
        if line is not None and len(line.tokens) == 1 and line.tokens[0].type.kind is Kind.INT:
            self.defined.add("t")
            return line
        count = _linear(stop, self.defined)
        if count is None:
            return None
        return Expr(constant=count.constant - start, variable=count.variable, scale=count.scale)

    def _while_count(self, node: ast.While) -> Expr | None:
        """``while t: ... t -= 1`` or ``while t > 0``: t times."""
        test = node.test
        name = test.id if isinstance(test, ast.Name) else (
            test.left.id if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) else None)
        if name is None or name not in self.defined:
            return None
        return Expr(variable=name)

    def _comprehension_repeat(self, value: ast.expr, names: list[str]) -> Node | None:
        """``[int(input()) for _ in range(n)]``: n lines of one token."""
        if not isinstance(value, ast.ListComp) or len(value.generators) != 1:
            return None
        count = self._range_count(value.generators[0].iter)
        if count is None or isinstance(count, Line):
            return None
        line = self.line_of(value.elt, [])
        return Repeat(count, (line,)) if line is not None else None


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _call_name(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    if isinstance(node, ast.Call):
        return _call_name(node.func)
    return ""


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [element.id if isinstance(element, ast.Name) else "" for element in target.elts]
    return [""]


def _constant(node: ast.expr) -> int | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) else None


def _linear(node: ast.expr, defined: set[str]) -> Expr | None:
    """``n``, ``n - 1``, ``n + 1``, ``2 * n``, ``5`` over variables read before."""
    value = _constant(node)
    if value is not None:
        return Expr(value)
    if isinstance(node, ast.Name):
        return Expr(variable=node.id) if node.id in defined else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        left, right = _linear(node.left, defined), _constant(node.right)
        if left is not None and right is not None:
            return Expr(left.constant + (right if isinstance(node.op, ast.Add) else -right), left.variable, left.scale)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        factor, inner = _constant(node.left), _linear(node.right, defined)
        if factor is not None and inner is not None and inner.variable is not None:
            return Expr(factor * inner.constant, inner.variable, factor * inner.scale)
    return None


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__")


def python_format(source: str) -> InputFormat | None:
    """The format a Python script reads (None: it reads nothing this reader follows)."""
    reader = _Python(ast.parse(source))
    nodes = reader.block(ast.parse(source).body)
    if not nodes:
        return None
    return _counted(InputFormat(tuple(nodes), origin="programs"))


def _counted(fmt: InputFormat) -> InputFormat:
    """A list read whole (``input().split()``) right after a count read alone is that many items
    (``n = int(input())`` then ``a = list(map(int, input().split()))``)."""
    def body(nodes: tuple[Node, ...], last_count: str | None) -> tuple[Node, ...]:
        out: list[Node] = []
        for node in nodes:
            if isinstance(node, Repeat):
                out.append(Repeat(node.count, body(node.body, last_count)))
                continue
            tokens = list(node.tokens)
            if len(tokens) == 1 and tokens[0].count is ANY and last_count is not None:
                tokens[0] = Token(tokens[0].type, name=tokens[0].name, count=Expr(variable=last_count))
            scalars = [t for t in tokens if t.count is None and t.name and t.type.kind is Kind.INT]
            last_count = scalars[0].name if len(scalars) >= 1 and len(tokens) <= 2 else None
            out.append(Line(tuple(tokens)))
        return tuple(out)
    return InputFormat(body(fmt.body, None), origin=fmt.origin, notes=fmt.notes)
