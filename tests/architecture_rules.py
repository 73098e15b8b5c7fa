"""How tests/test_architecture.py reads the package: its modules and imports, the folders they make,
and the ways code can ask which kind of program it holds. Syntax trees only: nothing is run here
but the registry of kinds, which the rules about kinds are derived from."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import divergent

PACKAGE = Path(divergent.__file__).resolve().parent


# -- modules and imports -----------------------------------------------------------------------------

def module_name(path: Path, root: Path = PACKAGE) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package at ``root``, by its dotted name relative to the package."""
    return dict(_modules(root))


@functools.cache
def _modules(root: Path) -> tuple[tuple[str, Path], ...]:
    return tuple((module_name(path, root), path) for path in sorted(root.rglob("*.py")))


@functools.cache
def _parsed(path: Path, stamp: float) -> ast.Module:
    return ast.parse(path.read_text())


def syntax(path: Path) -> ast.Module:
    return _parsed(path, path.stat().st_mtime)


def resolved_imports(path: Path, root: Path = PACKAGE) -> set[str]:
    """The package's modules a module imports (at any place: lazy and ``TYPE_CHECKING`` imports
    count), as names relative to the package: ``from a import b`` counts ``a.b`` when ``b`` is a
    module, else ``a``; a package counts as its ``__init__``."""
    return set(_resolved_imports(path, path.stat().st_mtime, root))


@functools.cache
def _resolved_imports(path: Path, stamp: float, root: Path) -> frozenset[str]:
    known = modules(root)
    package = root.name

    def resolve(dotted: str) -> str:
        name = dotted.removeprefix(package).lstrip(".") or "__init__"
        return f"{name}.__init__" if f"{name}.__init__" in known else name

    found = set()
    for node in ast.walk(syntax(path)):
        if isinstance(node, ast.Import):
            found.update(resolve(a.name) for a in node.names if a.name.split(".")[0] == package)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == package:
            for alias in node.names:
                submodule = resolve(f"{node.module}.{alias.name}")
                found.add(submodule if submodule in known else resolve(node.module))
    return frozenset(found)


def folder_of(name: str) -> str:
    """The top-level package (or top-level module) a module belongs to."""
    return name.split(".")[0]


def folder_imports(root: Path = PACKAGE) -> dict[tuple[str, str], list[str]]:
    """(importing folder, imported folder) → the imports that tie them, ``file -> file``. The
    package's ``__init__`` (``import divergent`` for its version or lazy names) ties nothing."""
    ties: dict[tuple[str, str], list[str]] = {}
    for name, path in modules(root).items():
        for target in sorted(resolved_imports(path, root)):
            pair = (folder_of(name), folder_of(target))
            if target != "__init__" and pair[0] != pair[1]:
                ties.setdefault(pair, []).append(f"{name} -> {target}")
    return ties


def reaches(edges: Iterable[tuple[str, str]], start: str, goal: str) -> bool:
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == goal and seen:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


def circles(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """One circle through each strongly connected group of nodes (Tarjan), each as a path that
    ends where it started."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    found = []
    for group in groups:  # the shortest way back to the group's first node
        start = min(group)
        came_from: dict[str, str] = {}
        todo = [start]
        while start not in came_from:
            node = todo.pop(0)
            for target in sorted(graph[node]):
                if target in group and target not in came_from:
                    came_from[target] = node
                    todo.append(target)
        path = [start]
        while len(path) == 1 or path[-1] != start:
            path.append(came_from[path[-1]])
        found.append(path[::-1])
    return found


# -- the kinds' own modules, derived from the registry -----------------------------------------------

@functools.cache
def kinds_own_modules() -> dict[str, str]:
    """The modules that serve one kind of program (or one family of kinds: those sharing a class
    below :class:`~divergent.kinds.base.ProgramKind`, as the kinds whose input is a text share
    ``TextKind``), each with its family: a kind's classes' modules, its presentation's, the engines
    its table names, and every module only such modules of that one family import. A branch on the
    kind there is no branch: the module is the kind's own. Derived from the registry
    (:data:`divergent.kinds.registry.KINDS`), so a new kind brings its own modules."""
    from divergent.kinds.base import ProgramKind
    from divergent.kinds.registry import all_kinds

    roots: dict[str, set[str]] = {}
    for kind in all_kinds():
        lineage = [c for c in type(kind).__mro__ if issubclass(c, ProgramKind) and c is not ProgramKind]
        family = lineage[-1].__qualname__
        places = {c.__module__ for c in lineage} | {type(kind.presentation).__module__}
        places |= {dotted.partition(":")[0] for dotted in kind.engines.values()}
        for place in places:
            roots.setdefault(place.removeprefix("divergent."), set()).add(family)
    importers: dict[str, set[str]] = {}
    for name, path in modules().items():
        for target in resolved_imports(path) - {name}:
            importers.setdefault(target, set()).add(name)
    own: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for name in modules():
            if name not in own:
                users = roots.get(name, set()) | {own.get(importer, "") for importer in importers.get(name, ())}
                if len(users) == 1 and "" not in users:
                    own[name] = users.pop()
                    changed = True
    return own


# -- what a branch on the kind is made of --------------------------------------------------------------

#: the seams a kind fills (docs/architecture.md, "The seams"): every class implementing one is a
#: kind's (a program record, an input, a runner, a comparison, a presentation)
SEAMS = ("Program", "AnyInput", "Runner", "Comparison", "Presentation")
#: what every kind shares: the interface itself
INTERFACE = ("ProgramKind", "Subjects")
#: the records one search hands every engine and the search itself: an optional field there whose
#: type is a kind's class is a per-kind part, and testing whether it is there asks the kind
HOLDERS = ("Subjects", "EngineContext")


@dataclass(frozen=True)
class KindVocabulary:
    """What a branch on the kind of program is made of, derived from the registry and the seams."""

    #: a kind's classes: those of its own modules and every implementation of a seam
    classes: frozenset[str]
    #: attributes some kind's records (programs and inputs) have beyond the protocols every kind's
    #: have (``text``, ``args``, ``entry_point``), and the parts a holder's per-kind subclass adds
    #: (a ``TextContext``'s ``services``)
    attributes: frozenset[str]
    #: the kinds' registered names (``"stdin-program"``)
    names: frozenset[str]
    #: the names of the kinds' instances (``STDIN_PROGRAMS``)
    instances: frozenset[str]
    #: the holders' optional per-kind fields (``services``)
    probes: frozenset[str]
    #: classes that list kinds by name (an option group's ``kinds = (...)``) → the kinds listed
    groups: Mapping[str, frozenset[str]]


def _defined_names(node: ast.ClassDef) -> set[str]:
    """The public names a class body defines: methods, fields, class attributes, ``self.x = ...``."""
    found = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(item.name)
            found.update(sub.attr for sub in ast.walk(item) if isinstance(sub, ast.Attribute)
                         and isinstance(sub.ctx, ast.Store) and isinstance(sub.value, ast.Name) and sub.value.id == "self")
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            found.add(item.target.id)
        elif isinstance(item, ast.Assign):
            found.update(target.id for target in item.targets if isinstance(target, ast.Name))
    return {name for name in found if not name.startswith("_")}


@functools.cache
def _classes() -> dict[str, list[tuple[str, ast.ClassDef]]]:
    """Every class of the package by name: (module, definition)."""
    found: dict[str, list[tuple[str, ast.ClassDef]]] = {}
    for name, path in modules().items():
        for node in ast.walk(syntax(path)):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append((name, node))
    return found


@functools.cache
def _members(name: str, seen: tuple[str, ...] = ()) -> frozenset[str]:
    """What a class defines, with what its bases (of the package) define."""
    found = set()
    for _, node in _classes().get(name, ()):
        found |= _defined_names(node)
        for base in node.bases:
            base_name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
            if base_name in _classes() and base_name not in seen:
                found |= _members(base_name, (*seen, name))
    return frozenset(found)


def implementations(protocol: str) -> set[str]:
    """The classes that define every name ``protocol`` declares (nominally or not)."""
    wanted = _members(protocol)
    return {name for name in _classes() if name != protocol and wanted and wanted <= _members(name)}


def _bases(node: ast.ClassDef) -> set[str]:
    return {base.id if isinstance(base, ast.Name) else base.attr for base in node.bases
            if isinstance(base, ast.Name | ast.Attribute)}


def subclasses(name: str) -> set[str]:
    """The package's classes that derive from ``name``, at any depth."""
    found: set[str] = set()
    grown = True
    while grown:
        grown = False
        for sub, places in _classes().items():
            if sub not in found and any(_bases(node) & (found | {name}) for _, node in places):
                found.add(sub)
                grown = True
    return found


def _typed_fields(name: str, classes: set[str]) -> set[str]:
    """A class's annotated fields whose type names one of ``classes``."""
    return {item.target.id for _, node in _classes().get(name, ()) for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            and not item.target.id.startswith("_") and names_in(item.annotation) & classes}


def _is_protocol(node: ast.ClassDef) -> bool:
    return any(isinstance(base, ast.Name) and base.id == "Protocol" for base in node.bases)


def _union(annotation: ast.expr) -> list[ast.expr]:
    """The members of an annotation's union (``A | None``, ``Optional[A]``, a string annotation)."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return _union(ast.parse(annotation.value, mode="eval").body)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _union(annotation.left) + _union(annotation.right)
    if isinstance(annotation, ast.Subscript) and names_in(annotation.value) & {"Optional", "Union"}:
        inner = annotation.slice
        return [member for element in (inner.elts if isinstance(inner, ast.Tuple) else [inner])
                for member in _union(element)]
    return [annotation]


@functools.cache
def kind_vocabulary() -> KindVocabulary:
    from divergent.kinds import registry

    own = kinds_own_modules()
    classes = {name for name, places in _classes().items() if all(module in own for module, _ in places)}
    for seam in SEAMS:
        classes |= implementations(seam)
    for name, places in _classes().items():  # a protocol only one family's own classes implement
        if name not in SEAMS and any(_is_protocol(node) for _, node in places):
            families = {own.get(module) for implementer in implementations(name)
                        for module, _ in _classes()[implementer]}
            if len(families) == 1 and None not in families:
                classes.add(name)
    classes -= set(INTERFACE)
    records = implementations("Program") | implementations("AnyInput")
    attributes = set().union(*(_members(record) for record in records)) - _members("Program") - _members("AnyInput")
    probes = set()
    for holder in HOLDERS:
        for _, node in _classes().get(holder, ()):
            for sub in ast.walk(node):
                field = (sub.target.id, sub.annotation) if isinstance(sub, ast.AnnAssign) and isinstance(
                    sub.target, ast.Name) else (sub.arg, sub.annotation) if isinstance(sub, ast.arg) else None
                if field is None or field[1] is None:
                    continue
                members = _union(field[1])
                if any(isinstance(m, ast.Constant) and m.value is None for m in members) and any(
                        isinstance(m, ast.Name) and m.id in classes for m in members):
                    probes.add(field[0])
        for sub in subclasses(holder):  # a holder's subclass carries one kind's parts (TextContext.services):
            attributes |= _typed_fields(sub, classes) - _members(holder)  # asking whether it is there
    names = frozenset(registry.KINDS)
    groups = {}
    for name, places in _classes().items():
        for _, node in places:
            for item in node.body:
                listed = kind_literals(getattr(item, "value", None), names)
                if isinstance(item, ast.Assign | ast.AnnAssign) and listed:
                    groups[name] = frozenset(listed)
    return KindVocabulary(
        classes=frozenset(classes), attributes=frozenset(attributes), names=names,
        instances=frozenset(dotted.partition(":")[2] for dotted in registry.KINDS.values()),
        probes=frozenset(probes), groups=groups,
    )


# -- the ways to ask which kind a module holds ------------------------------------------------------------

def names_in(node: ast.AST | None) -> set[str]:
    """The names an expression is made of: ``A``, ``m.A``, ``(A, B)``, ``A | B``, ``X[A]``; a string
    constant counts as the name it holds (``type(x).__name__ == "A"``)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set().union(*(names_in(element) for element in node.elts))
    if isinstance(node, ast.BinOp):
        return names_in(node.left) | names_in(node.right)
    if isinstance(node, ast.Subscript):
        return names_in(node.value) | names_in(node.slice)
    return set()


def kind_literals(node: ast.AST | None, kinds: frozenset[str]) -> set[str]:
    """The kinds' names written in ``node`` when it is one, or a display of them."""
    if isinstance(node, ast.Constant) and node.value in kinds:
        return {node.value}
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
        found = [kind_literals(element, kinds) for element in node.elts]
        return set().union(*found) if all(found) else set()
    return set()


def aliases(trees: Iterable[ast.AST], classes: frozenset[str]) -> set[str]:
    """``classes`` and every name bound to them: ``TEXTS = (TextInput, StdinProgram)``,
    ``Implementation = PythonFunction``, ``from x import TextInput as T``, names bound to others."""
    trees = list(trees)
    found = set(classes)
    grown = True
    while grown:
        grown = False
        for tree in trees:
            for node in ast.walk(tree):
                bound: list[str] = []
                if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(
                        node.value, ast.Name | ast.Attribute | ast.Tuple | ast.List | ast.Set | ast.BinOp) \
                        and names_in(node.value) & found:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    bound = [target.id for target in targets if isinstance(target, ast.Name)]
                elif isinstance(node, ast.ImportFrom):
                    bound = [a.asname for a in node.names if a.asname and a.name in found]
                new = set(bound) - found
                if new:
                    found |= new
                    grown = True
    return found


def _is_type_of(node: ast.AST) -> bool:
    """``type(x)`` or ``x.__class__``."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"
            and len(node.args) == 1) or (isinstance(node, ast.Attribute) and node.attr == "__class__")


def _is_type_name(node: ast.AST) -> bool:
    """``type(x).__name__`` (or ``__qualname__``, or through ``x.__class__``)."""
    return isinstance(node, ast.Attribute) and node.attr in ("__name__", "__qualname__") and _is_type_of(node.value)


def _tested(tree: ast.AST) -> Iterator[ast.expr]:
    """The expressions whose truth the code tests."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            yield node.test
        elif isinstance(node, ast.comprehension):
            yield from node.ifs
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node.operand
        elif isinstance(node, ast.BoolOp):
            yield from node.values
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "bool" and node.args:
            yield node.args[0]


def kind_branches(tree: ast.Module, vocabulary: KindVocabulary, shared_aliases: frozenset[str] = frozenset()
                  ) -> list[tuple[int, str]]:
    """Where a module asks which kind of program it holds, as (line, what): ``isinstance`` (or
    ``issubclass``, ``type(x) is``, ``case K()``) against a kind's class or a name bound to some;
    ``getattr``/``hasattr`` of an attribute only some kind's records have; a comparison with a
    kind's name or instance, or of ``type(x).__name__`` with a kind's class's name; a test of a
    per-kind field (``if not context.services``); a literal list of kinds; a record holding a part
    per kind (fields typed by classes that list different kinds)."""
    classes = aliases([tree], frozenset(shared_aliases | vocabulary.classes))
    found: list[tuple[int, str]] = []

    def kinds_of(names: set[str]) -> str:
        return ", ".join(sorted(names))

    compared: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) >= 2:
            asked = node.func.id
            if asked in ("isinstance", "issubclass") and names_in(node.args[1]) & classes:
                found.append((node.lineno, f"{asked}(..., {kinds_of(names_in(node.args[1]) & classes)})"))
            elif asked in ("getattr", "hasattr") and isinstance(node.args[1], ast.Constant) \
                    and node.args[1].value in vocabulary.attributes | vocabulary.probes:
                found.append((node.lineno, f"{asked}(..., {node.args[1].value!r})"))
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            compared.update(id(operand) for operand in operands)
            named = set().union(*(names_in(operand) for operand in operands))
            literal = set().union(*(kind_literals(operand, vocabulary.names) for operand in operands))
            if literal:
                found.append((node.lineno, f"compares with the kind {kinds_of(literal)}"))
            elif named & vocabulary.instances:
                found.append((node.lineno, f"compares with the kind {kinds_of(named & vocabulary.instances)}"))
            elif any(_is_type_name(o) or _is_type_of(o) for o in operands) and named & classes:
                found.append((node.lineno, f"compares type(...) with {kinds_of(named & classes)}"))
            elif any(isinstance(o, ast.Constant) and o.value is None for o in operands):
                probed = [o for o in operands if isinstance(o, ast.Name | ast.Attribute) and names_in(o) & vocabulary.probes]
                if probed:
                    found.append((node.lineno, f"tests {kinds_of(names_in(probed[0]) & vocabulary.probes)}"))
        elif isinstance(node, ast.MatchClass) and names_in(node.cls) & classes:
            found.append((node.lineno, f"case {kinds_of(names_in(node.cls) & classes)}()"))
        elif isinstance(node, ast.MatchValue) and kind_literals(node.value, vocabulary.names):
            found.append((node.lineno, f"compares with the kind {kinds_of(kind_literals(node.value, vocabulary.names))}"))
        elif isinstance(node, ast.ClassDef):
            found += _parts_per_kind(node, vocabulary)
    for expression in _tested(tree):
        if isinstance(expression, ast.Name | ast.Attribute) and names_in(expression) & vocabulary.probes:
            found.append((expression.lineno, f"tests {kinds_of(names_in(expression) & vocabulary.probes)}"))
    for node in ast.walk(tree):
        listed = kind_literals(node, vocabulary.names) if isinstance(node, ast.Tuple | ast.List | ast.Set) else set()
        if listed and id(node) not in compared:
            found.append((node.lineno, f"lists the kinds {kinds_of(listed)}"))
    return sorted(set(found))


def _parts_per_kind(node: ast.ClassDef, vocabulary: KindVocabulary) -> list[tuple[int, str]]:
    """The fields of a record that holds a part per kind: fields typed by classes listing different
    kinds (``functions: FunctionGroup`` beside ``programs: ProgramGroup``)."""
    parts = []
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            listed = [vocabulary.groups[n] for m in _union(item.annotation) for n in names_in(m) if n in vocabulary.groups]
            if listed:
                parts.append((item.lineno, f"{node.name}.{item.target.id}", frozenset().union(*listed)))
    if len({kinds for _, _, kinds in parts}) < 2:
        return []
    return [(line, f"{field}: a part for the kinds {', '.join(sorted(kinds))}") for line, field, kinds in parts]


@functools.cache
def exported_aliases() -> frozenset[tuple[str, str]]:
    """(module, name) for every name a module binds at its top level to kinds' classes
    (``TEXTS = (TextInput, StdinProgram)``): another module importing it branches on the kind."""
    classes = kind_vocabulary().classes
    found = set()
    for name, path in modules().items():
        top = ast.Module(body=[node for node in syntax(path).body if isinstance(node, ast.Assign | ast.AnnAssign)],
                         type_ignores=[])
        found |= {(name, alias) for alias in aliases([top], classes) - classes if not alias.startswith("__")}
    return frozenset(found)


def imported_aliases(tree: ast.Module, root: Path = PACKAGE) -> frozenset[str]:
    """The names a module imports that other modules bound to kinds' classes."""
    exported = exported_aliases()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == root.name:
            source = node.module.removeprefix(root.name).lstrip(".")
            found |= {a.asname or a.name for a in node.names if (source, a.name) in exported}
    return frozenset(found)
