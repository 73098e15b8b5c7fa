"""Mining a function for the structure of its inputs, from its syntax tree (never run).

:func:`mine_function` walks one function of a module (and, through calls, the module's functions it
uses, four calls deep) and records what it does with each parameter: regular expressions applied to
it (``re.match(P, s)``, ``COMPILED.search(s)``, a pattern folded from constants and ``%``-formatting),
``strptime`` formats (a loop over a list of formats gives the whole list), literals it is compared
with or split on, dict keys, attributes, calls that name a well-known grammar (``urlparse(url)``,
``json.loads(text)``) and the kind of value the uses suggest. A helper's uses of its own parameters
are carried back to the caller's parameters that were passed to it.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from divergent.grammars.hints import call_hints, literal_hints, name_hints, regex_hints
from divergent.structure.folding import CompiledPattern
from divergent.structure.records import UNTARGETED, FormatUse, RegexUse
from divergent.structure.scope import FunctionScope, ModuleIndex

__all__ = ["Collected", "mine_function", "mine_module"]

#: ``re`` functions: the position of the text argument (None: compile) and of the flags
_RE_FUNCTIONS: dict[str, tuple[int | None, int]] = {
    "match": (1, 2), "search": (1, 2), "fullmatch": (1, 2), "findall": (1, 2), "finditer": (1, 2),
    "split": (1, 3), "sub": (2, 4), "subn": (2, 4), "compile": (None, 1),
}  # fmt: skip
#: methods of a compiled pattern: the position of the text argument
_PATTERN_METHODS = {"match": 0, "search": 0, "fullmatch": 0, "findall": 0, "finditer": 0, "split": 0, "sub": 1, "subn": 1}
#: str methods whose first argument is a literal the text is shaped around
_LITERAL_METHODS = frozenset({
    "startswith", "endswith", "split", "rsplit", "partition", "rpartition", "strip", "lstrip", "rstrip",
    "replace", "find", "rfind", "index", "rindex", "count", "removeprefix", "removesuffix",
})  # fmt: skip
#: methods only text has
_TEXT_ONLY_METHODS = frozenset({
    "lower", "upper", "casefold", "title", "capitalize", "swapcase", "isdigit", "isalpha", "isalnum",
    "isspace", "isnumeric", "isdecimal", "isupper", "islower", "splitlines", "encode", "format", "zfill",
    "expandtabs", "ljust", "rjust", "center",
})  # fmt: skip
_MAPPING_METHODS = frozenset({"get", "items", "keys", "values", "setdefault", "pop", "update"})
#: strptime directives that say "this string is a date format" (``%d`` alone is an int format too)
_DATE_DIRECTIVES = frozenset("YybBmHIMSjpzZaAfeTDc")
#: calls deeper than this into the module's helpers are not followed
_MAX_DEPTH = 4


@dataclass
class Collected:
    """The uses of one parameter found so far (in order, duplicates kept out)."""

    regexes: dict[RegexUse, None] = field(default_factory=dict)
    formats: dict[FormatUse, None] = field(default_factory=dict)
    literals: dict[tuple[str, str], None] = field(default_factory=dict)
    keys: dict[Any, None] = field(default_factory=dict)
    attributes: dict[str, None] = field(default_factory=dict)
    grammars: dict[str, None] = field(default_factory=dict)
    kinds: Counter[str] = field(default_factory=Counter)

    def absorb(self, other: Collected, *, shapes_only: bool = False) -> None:
        self.regexes.update(other.regexes)
        self.formats.update(other.formats)
        if shapes_only:
            return
        self.literals.update(other.literals)
        self.keys.update(other.keys)
        self.attributes.update(other.attributes)
        self.grammars.update(other.grammars)
        self.kinds.update(other.kinds)


def is_date_format(text: Any) -> bool:
    """Whether a string looks like a strptime/strftime format (a date directive, no ``%s``-style one)."""
    if not isinstance(text, str) or "%" not in text or len(text) > 100:
        return False
    directives = [text[i + 1] for i in range(len(text) - 1) if text[i] == "%" and (i == 0 or text[i - 1] != "%")]
    if not directives or any(d in "sri" for d in directives):
        return False
    return any(d in _DATE_DIRECTIVES for d in directives) and all(d.isalpha() or d == "%" or d == "-" for d in directives)


class _Miner:
    def __init__(self, module: ModuleIndex, scope: FunctionScope, depth: int, cache: dict[str, dict[str, Collected]], stack: set[str]) -> None:
        self.module = module
        self.scope = scope
        self.depth = depth
        self.cache = cache
        self.stack = stack
        self.found: dict[str, Collected] = {}

    def at(self, target: str) -> Collected:
        return self.found.setdefault(target, Collected())

    def targets(self, node: ast.AST | None) -> frozenset[str]:
        return self.scope.origin(node)

    def direct_targets(self, node: ast.AST | None) -> frozenset[str]:
        """The parameters ``node`` is (a name, or a cleaned-up copy: ``s.strip()``), not merely
        carries (``fmt % value`` carries both but is neither)."""
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("strip", "lower", "upper", "replace", "lstrip", "rstrip"):
            node = node.func.value
        return self.scope.origin(node) if isinstance(node, ast.Name) else frozenset()

    def run(self) -> dict[str, Collected]:
        function = self.scope.function
        called = {id(node.func) for node in ast.walk(function) if isinstance(node, ast.Call)}
        for parameter in self.scope.parameters:
            default = self.scope.default(parameter)
            if default is not None and any(not isinstance(v, str | bytes) and v is not None for v in self.scope.folder.values(default)):
                continue  # `day_first=True` is no date
            for grammar in name_hints(parameter):
                self.at(parameter).grammars[grammar] = None
        for statement in function.body:
            for node in ast.walk(statement):
                if isinstance(node, ast.Call):
                    self._call(node)
                elif isinstance(node, ast.Compare):
                    self._compare(node)
                elif isinstance(node, ast.Subscript):
                    self._subscript(node)
                elif isinstance(node, ast.Attribute) and id(node) not in called and isinstance(node.ctx, ast.Load):
                    for target in self.targets(node.value):
                        self.at(target).attributes[node.attr] = None
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    self._constant(node)
        for target, collected in list(self.found.items()):
            for use in collected.regexes:
                for grammar in regex_hints(use.pattern):
                    collected.grammars[grammar] = None
            for literal, _ in collected.literals:
                for grammar in literal_hints(literal):
                    collected.grammars[grammar] = None
            if collected.formats and target != UNTARGETED:
                collected.grammars["date"] = None
        return self.found

    # -- what the code does ------------------------------------------------------------------

    def _call(self, node: ast.Call) -> None:
        callee = node.func
        folder = self.scope.folder
        if isinstance(callee, ast.Attribute):
            method = callee.attr
            receiver = callee.value
            if isinstance(receiver, ast.Name) and receiver.id in ("re", "regex") and method in _RE_FUNCTIONS:
                text_at, flags_at = _RE_FUNCTIONS[method]
                self._regex(node, self._argument(node, 0, "pattern"), self._argument(node, text_at, "string"), self._argument(node, flags_at, "flags"), method)
                return
            if method in _PATTERN_METHODS:
                compiled = [v for v in folder.values(receiver) if isinstance(v, CompiledPattern)]
                if compiled:
                    text = self._argument(node, _PATTERN_METHODS[method], "string")
                    targets = self.targets(text)
                    for pattern in compiled:
                        self._add_regex(targets, RegexUse(pattern.pattern, pattern.flags, method))
                    return
            if method == "strptime" and len(node.args) >= 2:
                self._formats(node.args[1], self.targets(node.args[0]), "strptime")
                self._kind(self.targets(node.args[0]), "str")
                return
            if method == "strftime" and node.args:
                self._formats(node.args[0], frozenset(), "strftime")
                return
            targets = self.targets(receiver)
            if targets:
                self._method(node, method, targets)
            for grammar in call_hints(method):
                for argument in node.args[:1]:
                    for target in self.direct_targets(argument):
                        self.at(target).grammars[grammar] = None
            return
        if not isinstance(callee, ast.Name):
            return
        name = callee.id
        if name == "getattr" and len(node.args) >= 2:
            for attribute in folder.values(node.args[1]):
                if isinstance(attribute, str):
                    for target in self.targets(node.args[0]):
                        self.at(target).attributes[attribute] = None
            return
        if name in ("int", "float", "Decimal", "complex") and node.args:
            for target in self.direct_targets(node.args[0]):
                self.at(target).grammars["number"] = None
        for grammar in call_hints(name):
            for argument in node.args[:1]:
                for target in self.direct_targets(argument):
                    self.at(target).grammars[grammar] = None
        if name in self.module.functions:
            self._helper(name, node)
        for argument in node.args:  # functions passed as callbacks: their patterns count too
            if isinstance(argument, ast.Name) and argument.id in self.module.functions:
                self._helper(argument.id, None)

    def _argument(self, node: ast.Call, position: int | None, keyword: str) -> ast.expr | None:
        if position is None:
            return None
        if position < len(node.args):
            return node.args[position]
        return next((k.value for k in node.keywords if k.arg == keyword), None)

    def _regex(self, node: ast.Call, pattern: ast.expr | None, text: ast.expr | None, flags: ast.expr | None, how: str) -> None:
        folder = self.scope.folder
        flag_values = [f for f in folder.values(flags) if isinstance(f, int)] if flags is not None else [0]
        targets = self.targets(text)
        for value in folder.values(pattern):
            for flag in flag_values or [0]:
                if isinstance(value, CompiledPattern):
                    self._add_regex(targets, RegexUse(value.pattern, value.flags | flag, how))
                elif isinstance(value, str | bytes):
                    self._add_regex(targets, RegexUse(value, flag, how))

    def _add_regex(self, targets: frozenset[str], use: RegexUse) -> None:
        for target in targets or (UNTARGETED,):
            self.at(target).regexes[use] = None
        self._kind(targets, "bytes" if isinstance(use.pattern, bytes) else "str")

    def _formats(self, node: ast.expr, targets: frozenset[str], how: str) -> None:
        values = [v for v in self.scope.folder.values(node) if isinstance(v, str)]
        group = tuple(dict.fromkeys(values))
        for value in group:
            for target in targets or (UNTARGETED,):
                self.at(target).formats[FormatUse(value, how, group)] = None

    def _method(self, node: ast.Call, method: str, targets: frozenset[str]) -> None:
        folder = self.scope.folder
        if method in _LITERAL_METHODS and node.args:
            for value in folder.values(node.args[0]):
                items = value if isinstance(value, tuple) else (value,)
                for item in items:
                    if isinstance(item, str | bytes) and len(item) <= 100:
                        for target in targets:
                            self.at(target).literals[(_text(item), method)] = None
            self._kind(targets, "str")
        elif method in _TEXT_ONLY_METHODS:
            self._kind(targets, "str")
        elif method == "decode":
            self._kind(targets, "bytes")
        elif method in _MAPPING_METHODS:
            self._kind(targets, "dict")
            if method in ("get", "setdefault", "pop") and node.args:
                for key in folder.values(node.args[0]):
                    if isinstance(key, str | int | bytes | tuple):
                        for target in targets:
                            self.at(target).keys[key] = None
        elif method in ("append", "extend", "insert", "sort"):
            self._kind(targets, "list")

    def _compare(self, node: ast.Compare) -> None:
        folder = self.scope.folder
        left = node.left
        for operator, right in zip(node.ops, node.comparators, strict=True):
            for a, b in ((left, right), (right, left)):
                targets = self.targets(a)
                if not targets:
                    continue
                if isinstance(operator, ast.Eq | ast.NotEq) or (isinstance(operator, ast.In | ast.NotIn) and a is left):
                    for value in folder.values(b):
                        options = value if isinstance(value, tuple | list | set | frozenset | dict) else (value,)
                        for option in _ordered(options):
                            if isinstance(option, str | bytes) and len(option) <= 100:
                                how = "==" if isinstance(operator, ast.Eq | ast.NotEq) else "one-of"
                                for target in targets:
                                    self.at(target).literals[(_text(option), how)] = None
                                if isinstance(option, bytes):
                                    self._kind(targets, "bytes")
                            elif isinstance(option, int | float) and not isinstance(option, bool) and isinstance(operator, ast.Eq | ast.NotEq):
                                self._kind(targets, "number")
                elif isinstance(operator, ast.In | ast.NotIn) and a is right:
                    for value in folder.values(b):
                        if isinstance(value, str | bytes) and len(value) <= 100:
                            for target in targets:
                                self.at(target).literals[(_text(value), "in")] = None
                                self.at(target).keys[value] = None
                elif isinstance(operator, ast.Lt | ast.LtE | ast.Gt | ast.GtE) and any(
                    isinstance(v, int | float) and not isinstance(v, bool) for v in folder.values(b)
                ):
                    self._kind(targets, "number")
            left = right

    def _subscript(self, node: ast.Subscript) -> None:
        targets = self.targets(node.value)
        if not targets or isinstance(node.slice, ast.Slice):
            return
        for key in self.scope.folder.values(node.slice):
            if isinstance(key, str | bytes):
                self._kind(targets, "dict")
                for target in targets:
                    self.at(target).keys[key] = None

    def _constant(self, node: ast.Name) -> None:
        """Patterns and date formats in the module constants the code reads."""
        if node.id in self.scope.parameters or node.id not in self.module.constant_names():
            return
        if self.scope.loop_iterables(node.id):
            return
        for value in self.module.folder.values(node):
            values = list(value.values()) + list(value) if isinstance(value, dict) else value
            items = values if isinstance(values, list | tuple | set | frozenset) else [values]
            group = tuple(dict.fromkeys(i for i in _ordered(items) if is_date_format(i)))
            for item in _ordered(items):
                if isinstance(item, CompiledPattern):
                    self.at(UNTARGETED).regexes[RegexUse(item.pattern, item.flags, "constant")] = None
                elif is_date_format(item):
                    self.at(UNTARGETED).formats[FormatUse(item, "constant", group)] = None

    def _kind(self, targets: frozenset[str], kind: str) -> None:
        for target in targets:
            self.at(target).kinds[kind] += 1

    # -- helpers of the module ---------------------------------------------------------------

    def _helper(self, name: str, call: ast.Call | None) -> None:
        if self.depth >= _MAX_DEPTH or name in self.stack:
            return
        helper = self.module.scope(name)
        if helper is None:
            return
        bound: dict[str, frozenset[str]] = {}
        known: dict[str, list[Any]] = {}
        if call is not None:
            pairs = [(p, a) for p, a in zip(helper.parameters, call.args, strict=False) if not isinstance(a, ast.Starred)]
            pairs += [(k.arg, k.value) for k in call.keywords if k.arg]
            for parameter, argument in pairs:
                bound[parameter] = self.targets(argument)
                values = self.scope.folder.values(argument)
                if values:
                    known[parameter] = values
        # A helper given constants by this call is read with them (a unit table passed in, say).
        found = mine_function(self.module, name, self.depth + 1, self.cache, self.stack, known)
        for target, collected in found.items():
            mapped = bound.get(target, frozenset())
            if mapped:
                for caller_target in mapped:
                    self.at(caller_target).absorb(collected)
            else:
                self.at(UNTARGETED).absorb(collected, shapes_only=True)


def _ordered(items: Any) -> list[Any]:
    if isinstance(items, set | frozenset):
        return sorted(items, key=repr)
    return list(items)


def _text(value: str | bytes) -> str:
    return value if isinstance(value, str) else value.decode("latin-1")


def mine_function(
    module: ModuleIndex, name: str, depth: int = 0, cache: dict[str, dict[str, Collected]] | None = None,
    stack: set[str] | None = None, known: dict[str, list[Any]] | None = None,
) -> dict[str, Collected]:
    """What function ``name`` of ``module`` does with each of its parameters (``""``: none);
    ``known``: values a caller passes for some parameters."""
    cache = {} if cache is None else cache
    key = name if not known else f"{name}:{sorted((k, repr(v)[:2000]) for k, v in known.items())}"
    if key in cache:
        return cache[key]
    scope = module.scope(name)
    if scope is None:
        return {}
    if known:
        scope = FunctionScope(module, scope.function, known)
    stack = set() if stack is None else stack
    stack.add(name)
    try:
        found = _Miner(module, scope, depth, cache, stack).run()
    finally:
        stack.discard(name)
    targeted = {(use.pattern, use.flags) for target, collected in found.items() if target for use in collected.regexes}
    if UNTARGETED in found:  # a pattern compiled here and applied to a parameter is that parameter's
        untargeted = found[UNTARGETED].regexes
        for use in list(untargeted):
            if (use.pattern, use.flags) in targeted:
                del untargeted[use]
    cache[key] = found
    return found


def mine_module(module: ModuleIndex) -> dict[str, Collected]:
    """Every function of a module, its uses tied to no parameter (the entry point was not found)."""
    merged = Collected()
    cache: dict[str, dict[str, Collected]] = {}
    for name in module.functions:
        for collected in mine_function(module, name, 0, cache).values():
            merged.absorb(collected, shapes_only=True)
    return {UNTARGETED: merged}
