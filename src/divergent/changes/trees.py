"""The two sides of a diff: which revisions (or the work tree), where their files are on disk, and
their Python modules read into symbols.

A revision's whole tree is exported once into the private cache the git-aware ``check`` loads from
(:func:`divergent.load.git.tree_at_revision`), so each side's code is imported from its own tree,
its package layout and its sibling modules as they were at that revision. The work tree is read
where it is: tracked files and untracked ones git does not ignore."""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from divergent.changes.symbols import ModuleSymbols, module_symbols
from divergent.errors import InvalidArgument, LoadError
from divergent.load.git import git_output, repository_root, tree_at_revision
from divergent.load.python_files import package_layout

__all__ = ["ReadTree", "Side", "generated_modules", "read_tree", "sides_of"]

#: how the work tree is named in labels and reports
WORK_TREE = "work tree"


@dataclass(frozen=True)
class Side:
    """One side of a diff: a revision (its commit, its exported tree) or the work tree."""

    #: how it is shown: the revision as the user wrote it, or "work tree"
    name: str
    #: the directory its files are read and imported from
    root: Path
    #: the commit (None: the work tree)
    commit: str | None = None
    #: modules the build generates (git ignores them), copied from the work tree into the revision's
    #: tree so its package imports (setuptools_scm's ``_version.py``)
    generated: tuple[str, ...] = ()

    @property
    def is_work_tree(self) -> bool:
        return self.commit is None

    def spec_prefix(self) -> str:
        """What a ``check`` spec of a file on this side starts with (``REV:`` or nothing)."""
        return "" if self.commit is None else f"{self.name}:"


def sides_of(revisions: Sequence[str], cwd: Path) -> tuple[Side, Side]:
    """The sides ``divergent diff [REV_A [REV_B]]`` compares: none, the work tree against ``HEAD``;
    one, that revision against the work tree (``A..B``: between two revisions); two, between them."""
    root = repository_root(cwd)
    names = list(revisions)
    if len(names) == 1 and ".." in names[0] and "..." not in names[0]:
        first, _, second = names[0].partition("..")
        names = [first or "HEAD", second or "HEAD"]
    if len(names) > 2:
        raise InvalidArgument(f"diff compares two sides; got {len(names)} revisions: {' '.join(names)}")
    if not names:
        names = ["HEAD"]
    sides = []
    for name in names:
        commit, tree = tree_at_revision(name, root)
        sides.append(Side(name, tree, commit, generated=generated_modules(tree, root)))
    if len(sides) == 1:
        sides.append(Side(WORK_TREE, root))
    return sides[0], sides[1]


def generated_modules(tree: Path, repository: Path) -> tuple[str, ...]:
    """Copy into a revision's exported ``tree`` the Python files of the work tree that git ignores
    and that the tree's packages lack (a version module a build writes: ``src/pkg/_version.py``), as
    the work tree's imports find them; the files copied."""
    import shutil

    listed = git_output(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], repository,
                        "listing ignored files")
    copied = []
    for name in listed.split("\0"):
        target = tree / name
        if not name.endswith(".py") or target.exists() or not (target.parent / "__init__.py").is_file():
            continue
        try:
            shutil.copyfile(repository / name, target)
        except OSError:
            continue
        copied.append(name)
    return tuple(sorted(copied))


@dataclass
class ReadTree:
    """A side's Python modules: their symbols by file (relative to the repository), the files that
    could not be read, and each file's module name and ``sys.path`` root."""

    side: Side
    modules: dict[str, ModuleSymbols] = field(default_factory=dict)
    #: file → why it could not be parsed
    unreadable: dict[str, str] = field(default_factory=dict)
    #: file → digest of its bytes (files equal on both sides are parsed once)
    digests: dict[str, str] = field(default_factory=dict)

    def by_module(self) -> dict[str, list[ModuleSymbols]]:
        found: dict[str, list[ModuleSymbols]] = {}
        for symbols in self.modules.values():
            found.setdefault(symbols.module, []).append(symbols)
        return found


def _python_files(side: Side, repository: Path) -> list[str]:
    if side.commit is not None:
        listed = git_output(["ls-tree", "-r", "-z", "--name-only", side.commit], repository, f"listing {side.name}")
    else:
        listed = git_output(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], repository,
                            "listing the work tree")
    return sorted(name for name in listed.split("\0") if name.endswith(".py") and (side.root / name).is_file())


#: modules already read, by (file, module, digest): the sides share most files
_PARSED: dict[tuple[str, str, str], ModuleSymbols] = {}
_PARSED_KEPT = 5000


def read_tree(side: Side, repository: Path) -> ReadTree:
    """Every Python file of ``side`` read into symbols (files that do not parse are listed)."""
    read = ReadTree(side)
    for name in _python_files(side, repository):
        file = side.root / name
        try:
            data = file.read_bytes()
        except OSError as error:
            read.unreadable[name] = error.strerror or str(error)
            continue
        digest = hashlib.sha256(data).hexdigest()
        read.digests[name] = digest
        module, _ = package_layout(file)
        key = (name, module, digest)
        cached = _PARSED.get(key)
        if cached is None:
            try:
                tree = ast.parse(data, filename=name)
                cached = module_symbols(tree, module, name, is_package=file.name == "__init__.py")
            except (SyntaxError, ValueError, MemoryError) as error:
                read.unreadable[name] = f"does not parse: {error}"
                continue
            except RecursionError:
                read.unreadable[name] = "nested too deeply to read"
                continue
            if len(_PARSED) > _PARSED_KEPT:
                _PARSED.clear()
            _PARSED[key] = cached
        read.modules[name] = cached
    return read


def check_repository(cwd: Path) -> Path:
    """The repository ``cwd`` is in (an input error outside one)."""
    try:
        return repository_root(cwd)
    except LoadError as error:
        raise InvalidArgument(f"divergent diff works in a git repository: {error}") from None
