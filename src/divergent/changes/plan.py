"""The plan of a diff: every function whose behaviour the change may have touched, paired old with
new, each either checked (with the two programs the search compares) or skipped with the reason.

Functions are paired by qualified name (``pkg.mod:Class.method``); a function found on one side
only is followed to the other when a function there, on that side only too, has the same body
(a rename or a move). Test functions (pytest's ``test_*.py``, ``*_test.py``, ``conftest.py``, a
``tests`` folder) are not compared: they are counted in the plan."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from divergent.changes.calling import Factory, Skip, Way, calling_way, check_common, common_parameters
from divergent.changes.reach import Graph, Reach, SymbolId, changed_symbols, reach_of
from divergent.changes.symbols import ModuleSymbols, Symbol
from divergent.changes.trees import ReadTree, Side, read_tree, sides_of
from divergent.load.python_files import package_layout, read_source
from divergent.programs import PythonFunction, Signature

__all__ = ["DiffPlan", "PlannedFunction", "Status", "plan_diff", "plan_sides"]


class Status:
    """What the plan does with a function (and, once run, what came of it)."""

    CHECK = "check"
    SKIPPED = "skipped"
    ADDED = "added"
    REMOVED = "removed"


@dataclass(frozen=True)
class PlannedFunction:
    """One function of the diff."""

    #: ``path.py:qualname`` on the new side (the old side's for a removed function)
    name: str
    module: str
    qualname: str
    #: its file in the repository and its line (new side; old side when removed)
    path: str
    line: int
    status: str
    #: why it is in the diff: its code changed, or what changed that it reaches; a rename
    why: str
    #: why it is skipped, or how it is compared (empty when there is nothing to say)
    reason: str = ""
    #: steps from it to the change it reaches (0: its own code changed); the nearest are run first
    distance: int = 0
    old: PythonFunction | None = None
    new: PythonFunction | None = None


@dataclass(frozen=True)
class DiffPlan:
    """What a diff compares and what it leaves out, and why."""

    old: Side
    new: Side
    repository: Path
    functions: tuple[PlannedFunction, ...]
    #: functions of the files in scope that neither changed nor reach a change
    unchanged: int = 0
    #: test functions touched by the change, not compared
    tests: int = 0
    #: files that could not be read on a side (``side: file: why``)
    notes: tuple[str, ...] = ()
    symbols_changed: int = 0

    @property
    def checked(self) -> tuple[PlannedFunction, ...]:
        return tuple(f for f in self.functions if f.status == Status.CHECK)

    @property
    def skipped(self) -> tuple[PlannedFunction, ...]:
        return tuple(f for f in self.functions if f.status == Status.SKIPPED)


@dataclass
class _Located:
    module: ModuleSymbols
    symbol: Symbol
    side: Side


def _is_test(path: str) -> bool:
    parts = PurePosixPath(path).parts
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(part in ("tests", "test", "testing") for part in parts[:-1]))


def _in_scope(path: str, scope: Sequence[str]) -> bool:
    return not scope or any(path == s or path.startswith(s.rstrip("/") + "/") or s in (".", "") for s in scope)


def _functions(tree: ReadTree) -> dict[SymbolId, _Located]:
    found = {}
    for symbols in tree.modules.values():
        for symbol in symbols.functions():
            found[(symbols.module, symbol.qualname)] = _Located(symbols, symbol, tree.side)
    return found


def _renames(old: dict[SymbolId, _Located], new: dict[SymbolId, _Located]) -> dict[SymbolId, SymbolId]:
    """new id → old id for functions on one side only whose bodies match (one match each)."""
    gone: dict[str, list[SymbolId]] = {}
    for key, located in old.items():
        if key not in new:
            gone.setdefault(located.symbol.body_print, []).append(key)
    found = {}
    for key, located in new.items():
        if key in old:
            continue
        matches = [m for m in gone.get(located.symbol.body_print, ()) if m not in found.values()]
        same_name = [m for m in matches if m[1].rsplit(".", 1)[-1] == key[1].rsplit(".", 1)[-1]]
        chosen = same_name or matches
        if len(chosen) == 1:
            found[key] = chosen[0]
    return found


def _program(located: _Located, way: Way, parameters: tuple, label: str, origin: str) -> PythonFunction:
    file = located.side.root / located.module.path
    module_name, sys_path = package_layout(file)
    return PythonFunction(
        label=label, entry_point=way.entry_point, source=read_source(file, label),
        signature=Signature(parameters=parameters), path=str(file), module_name=module_name,
        sys_path=sys_path, setup_code=way.setup_code, origin=origin,
    )


def _label(located: _Located) -> str:
    return f"{located.side.spec_prefix()}{located.module.path}:{located.symbol.qualname}"


def _planned(old: _Located, new: _Located, reach: Reach, renamed: bool, factories: Sequence[Factory]) -> PlannedFunction:
    why = reach.describe()
    if renamed:
        moved = old.module.path != new.module.path
        verb = "moved" if moved else "renamed"
        why = f"{verb} from {old.module.path + ':' if moved else ''}{old.symbol.qualname}" + (
            "" if reach.direct else f"; {why}")
    base = PlannedFunction(name=f"{new.module.path}:{new.symbol.qualname}", module=new.module.module,
                           qualname=new.symbol.qualname, path=new.module.path, line=new.symbol.line,
                           status=Status.CHECK, why=why, distance=len(reach.path) - 1)
    try:
        ways = [calling_way(located.symbol, located.module.module, located.module.classes, located.module.symbols,
                            factories) for located in (old, new)]
        old_parameters, new_parameters, note = common_parameters(*ways)
        if ways[0].how != ways[1].how:
            raise Skip(f"was a {ways[0].how}, now a {ways[1].how}")
        programs = [_program(located, way, parameters, _label(located), _label(located))
                    for located, way, parameters in ((old, ways[0], old_parameters), (new, ways[1], new_parameters))]
        check_common(*programs)
    except Skip as skip:
        return replace(base, status=Status.SKIPPED, reason=str(skip))
    how = "" if ways[1].how == "function" else ways[1].how
    return replace(base, reason="; ".join(part for part in (how, note) if part), old=programs[0], new=programs[1])


def plan_sides(old_side: Side, new_side: Side, repository: Path, *, paths: Sequence[str] = (),
               factories: Sequence[Factory] = ()) -> DiffPlan:
    """The plan between two sides (see the module docstring); ``paths``: the files or folders
    (relative to the repository) whose functions are reported."""
    old_tree, new_tree = read_tree(old_side, repository), read_tree(new_side, repository)
    old_graph, new_graph = Graph(old_tree), Graph(new_tree)
    changed = changed_symbols(old_graph, new_graph)
    old_functions, new_functions = _functions(old_tree), _functions(new_tree)
    renamed = _renames(old_functions, new_functions)
    reached = reach_of(set(old_functions) | set(new_functions), (old_graph, new_graph), changed)
    planned: list[PlannedFunction] = []
    tests = unchanged = 0
    paired_old = set(renamed.values())
    for key, new in new_functions.items():
        if not _in_scope(new.module.path, paths):
            continue
        if key not in reached:
            unchanged += 1
            continue
        if _is_test(new.module.path):
            tests += 1
            continue
        old_key = renamed.get(key, key)
        old = old_functions.get(old_key)
        if old is None:
            planned.append(PlannedFunction(name=f"{new.module.path}:{new.symbol.qualname}", module=key[0],
                                           qualname=key[1], path=new.module.path, line=new.symbol.line,
                                           status=Status.ADDED, why="new function", reason="nothing to compare with"))
            continue
        planned.append(_planned(old, new, reached[key], key in renamed, factories))
    for key, old in old_functions.items():
        if key in new_functions or key in paired_old or not _in_scope(old.module.path, paths):
            continue
        if _is_test(old.module.path):
            tests += 1
            continue
        planned.append(PlannedFunction(name=f"{old.module.path}:{old.symbol.qualname}", module=key[0],
                                       qualname=key[1], path=old.module.path, line=old.symbol.line,
                                       status=Status.REMOVED, why="removed", reason="nothing to compare with"))
    notes = tuple(f"{tree.side.name}: {file}: {why}" for tree in (old_tree, new_tree)
                  for file, why in sorted(tree.unreadable.items()) if _in_scope(file, paths))
    notes += tuple(f"{side.name}: {file} is not in the revision (git ignores it): the work tree's copy is used"
                   for side in (old_side, new_side) for file in side.generated)
    planned.sort(key=lambda f: (f.path, f.line, f.qualname))
    return DiffPlan(old=old_side, new=new_side, repository=repository, functions=tuple(planned), unchanged=unchanged,
                    tests=tests, notes=notes, symbols_changed=len(changed))


def plan_diff(revisions: Sequence[str] = (), *, cwd: Path | None = None, paths: Sequence[str] = (),
              factories: Sequence[Factory] = ()) -> DiffPlan:
    """The plan of ``divergent diff [REV_A [REV_B]] [-- PATH...]`` run in ``cwd``: no revision, the
    work tree against ``HEAD``; one, that revision against the work tree (``A..B``: two
    revisions); two, between them. ``paths`` are relative to ``cwd``."""
    from divergent.changes.trees import check_repository

    where = Path(cwd) if cwd is not None else Path.cwd()
    repository = check_repository(where)
    old_side, new_side = sides_of(revisions, where)
    scope = [os.path.relpath(os.path.abspath(where / p), repository) for p in paths]
    return plan_sides(old_side, new_side, repository, paths=scope, factories=factories)
