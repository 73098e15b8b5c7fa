"""Which functions a change may reach: the symbols that changed between two sides, and every
function that reads one of them, directly or through what it calls, across the repository's modules.

Each side's symbols (:mod:`divergent.changes.symbols`) are joined into a graph: a symbol points to
what its names resolve to in its module (a definition, an assignment, an import's target in another
module of the repository, ``alias.attr`` through imported modules), a method to its class's header
and to the attributes of its class it reads (``self.x``), a class as a whole (``C.*``: what using
the class reaches) to its header and all its methods, a whole module (``mod.*``, a module passed
around or star-imported) to all its symbols; every function of a module points to the module's
import-time code (a change there reaches them all; what that code calls does not). Names that resolve outside the repository (the standard library, dependencies)
lead nowhere: they are not part of the change.

A symbol **changed** when its fingerprint differs between the sides or it exists on one side only.
A function is a candidate when it changed itself, or reaches a changed symbol on either side's
graph. Where the analysis cannot see (``getattr`` with a computed name, ``globals()``) it sees
nothing; where a name resolves to several things (a module name two files share, an attribute of a
repository module it cannot find) it keeps them all: a candidate too many costs one search, one too
few a missed change."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from divergent.changes.symbols import MODULE_CODE, ModuleSymbols, Symbol
from divergent.changes.trees import ReadTree

__all__ = ["Graph", "Reach", "SymbolId", "changed_symbols", "reach_of", "show_id"]

#: (module, qualname); ``C.*`` is class ``C`` as a whole, ``*`` the whole module
SymbolId = tuple[str, str]

WHOLE = "*"


def show_id(symbol: SymbolId) -> str:
    module, name = symbol
    if name == WHOLE:
        return f"module {module}"
    return f"{module}:{name.removesuffix('.*')}"


class Graph:
    """One side's symbols and what each reads (see the module docstring)."""

    def __init__(self, tree: ReadTree) -> None:
        self.tree = tree
        self.modules: dict[str, list[ModuleSymbols]] = tree.by_module()
        self.edges: dict[SymbolId, set[SymbolId]] = {}
        for symbols in tree.modules.values():
            self._add_module(symbols)

    def symbol(self, symbol: SymbolId) -> Symbol | None:
        module, name = symbol
        for symbols in self.modules.get(module, ()):
            if name in symbols.symbols:
                return symbols.symbols[name]
        return None

    def ids(self) -> Iterator[SymbolId]:
        for module, files in self.modules.items():
            for symbols in files:
                for name in symbols.symbols:
                    yield module, name

    # -- building ----------------------------------------------------------------------------------

    def _add_module(self, symbols: ModuleSymbols) -> None:
        module = symbols.module
        whole = self.edges.setdefault((module, WHOLE), set())
        for name, symbol in symbols.symbols.items():
            own = (module, name)
            whole.add(own)
            targets = self.edges.setdefault(own, set())
            if name == MODULE_CODE:
                # a leaf: the functions of the module run after it, whatever it calls
                continue
            for read in symbol.names:
                targets |= self._name(symbols, read)
            for chain in symbol.chains:
                targets |= self._chain(symbols, chain)
            if symbol.kind == "import" and symbol.binding is not None:
                targets |= self._binding(symbol.binding.module, symbol.binding.name)
            if symbol.kind in ("function", "method") and MODULE_CODE in symbols.symbols and name != MODULE_CODE:
                targets.add((module, MODULE_CODE))
            if symbol.owner is not None:
                targets.add((module, symbol.owner))  # the class's header: bases, decorators, body
                for attribute in symbol.own_attributes:
                    targets |= self._class_attribute(symbols, symbol.owner, attribute)
                self.edges.setdefault((module, f"{symbol.owner}.*"), set()).add(own)
            if symbol.kind == "class":
                self.edges.setdefault((module, f"{name}.*"), set()).add(own)

    def _class_attribute(self, symbols: ModuleSymbols, owner: str, attribute: str) -> set[SymbolId]:
        name = f"{owner}.{attribute}"
        if name in symbols.symbols:
            kind = symbols.symbols[name].kind
            return {(symbols.module, f"{name}.*" if kind == "class" else name)}
        # not the class's own: inherited (the header leads to the bases) or set on the instance
        return set()

    def _name(self, symbols: ModuleSymbols, name: str) -> set[SymbolId]:
        """What a module-level name of ``symbols``'s module stands for."""
        symbol = symbols.symbols.get(name)
        if symbol is not None:
            return {(symbols.module, f"{name}.*" if symbol.kind == "class" else name)}
        # a star import may bind it
        found: set[SymbolId] = set()
        for other in symbols.symbols.values():
            if other.kind == "import" and other.binding is not None and other.binding.name == "*":
                found |= self._binding(other.binding.module, name)
        return found

    def _binding(self, module: str, name: str | None) -> set[SymbolId]:
        """What ``import module`` (``name`` None) or ``from module import name`` reaches in the repository."""
        if name is None or name == WHOLE:
            return {(module, WHOLE)} if module in self.modules else set()
        if module in self.modules:
            for symbols in self.modules[module]:
                symbol = symbols.symbols.get(name)
                if symbol is not None:
                    return {(module, f"{name}.*" if symbol.kind == "class" else name)}
        submodule = f"{module}.{name}" if module else name
        if submodule in self.modules:
            return {(submodule, WHOLE)}
        if module in self.modules:
            # a name the module does not visibly define (built at run time): the whole module
            return {(module, WHOLE)}
        return set()

    def _module_of(self, symbols: ModuleSymbols, head: str) -> str | None:
        """The repository module a module-level name is bound to by an import, if it is one."""
        symbol = symbols.symbols.get(head)
        if symbol is None or symbol.kind != "import" or symbol.binding is None:
            return None
        binding = symbol.binding
        if binding.name is None:
            return binding.module if binding.module in self.modules else None
        dotted = f"{binding.module}.{binding.name}" if binding.module else binding.name
        return dotted if dotted in self.modules else None

    def _chain(self, symbols: ModuleSymbols, chain: tuple[str, ...]) -> set[SymbolId]:
        head, *attributes = chain
        module = self._module_of(symbols, head)
        if module is None:
            found = self._name(symbols, head)
            symbol = symbols.symbols.get(head)
            if symbol is not None and symbol.kind == "class" and attributes:
                return self._class_attribute(symbols, head, attributes[0]) or found
            return found
        for index, attribute in enumerate(attributes):
            deeper = f"{module}.{attribute}"
            if deeper in self.modules and not any(attribute in s.symbols for s in self.modules[module]):
                module = deeper
                continue
            found = self._binding(module, attribute)
            if index + 1 < len(attributes):
                for symbols_there in self.modules.get(module, ()):
                    symbol = symbols_there.symbols.get(attribute)
                    if symbol is not None and symbol.kind == "class":
                        found |= self._class_attribute(symbols_there, attribute, attributes[index + 1])
            return found
        return {(module, WHOLE)}


def changed_symbols(old: Graph, new: Graph) -> dict[SymbolId, str]:
    """The symbols that differ between the sides, each with how: "changed", "added", "removed"."""
    changed: dict[SymbolId, str] = {}
    for symbol in set(old.ids()) | set(new.ids()):
        before, after = old.symbol(symbol), new.symbol(symbol)
        if before is None:
            changed[symbol] = "added"
        elif after is None:
            changed[symbol] = "removed"
        elif before.fingerprint != after.fingerprint:
            changed[symbol] = "changed"
    return changed


@dataclass(frozen=True)
class Reach:
    """Why a function is a candidate: its own code changed (``path`` is itself), or the path of
    symbols from it to the changed one it reaches."""

    path: tuple[SymbolId, ...]
    #: how the last symbol of the path changed
    how: str

    @property
    def direct(self) -> bool:
        return len(self.path) == 1

    def describe(self) -> str:
        if self.direct:
            return "its code changed" if self.how == "changed" else f"{self.how}"
        target = show_id(self.path[-1])
        via = " via " + " → ".join(show_id(s) for s in self.path[1:-1]) if len(self.path) > 2 else ""
        return f"reaches {target} ({self.how}){via}"


def _toward_changes(graph: Graph, changed: dict[SymbolId, str]) -> dict[SymbolId, SymbolId | None]:
    """For every symbol that reaches a changed one, the next step on a shortest path toward it
    (None: it is a changed symbol itself)."""
    readers: dict[SymbolId, set[SymbolId]] = {}
    for source, targets in graph.edges.items():
        for target in targets:
            readers.setdefault(target, set()).add(source)
    step: dict[SymbolId, SymbolId | None] = {symbol: None for symbol in changed}
    queue = deque(sorted(changed))
    while queue:
        current = queue.popleft()
        for reader in sorted(readers.get(current, ())):
            if reader not in step:
                step[reader] = current
                queue.append(reader)
    return step


def reach_of(functions: Iterable[SymbolId], graphs: Iterable[Graph], changed: dict[SymbolId, str]) -> dict[SymbolId, Reach]:
    """Each function of ``functions`` that is a candidate on some graph, with the shortest reason."""
    found: dict[SymbolId, Reach] = {}
    steps = [_toward_changes(graph, changed) for graph in graphs]
    for function in functions:
        if function in changed:
            found[function] = Reach((function,), changed[function])
            continue
        best: tuple[SymbolId, ...] | None = None
        for step in steps:
            if function not in step:
                continue
            path = [function]
            while (following := step[path[-1]]) is not None and len(path) < 64:
                path.append(following)
            if best is None or len(path) < len(best):
                best = tuple(path)
        if best is not None:
            found[function] = Reach(best, changed.get(best[-1], "changed"))
    return found
