"""Copy top-level definitions verbatim out of a project's git history, for the ``realbugs/`` suite.

Each side of a ``realbugs/`` pair is the function under test copied from one commit, with the
same-module (or same-project) helpers and constants it uses and the module's own import
statements for the stdlib names they need. ``meta.json`` records what was copied
(``provenance.copied``: repository path and top-level names, in order); this script rebuilds a side
from that record and a local clone, so anyone can check that nothing was edited::

    python benchmarks/realbugs_extract.py show GIT_DIR COMMIT PATH NAME[,NAME...]
    python benchmarks/realbugs_extract.py check GIT_DIR PAIR_DIR [--side a|b]
    python benchmarks/realbugs_extract.py write GIT_DIR PAIR_DIR [--side a|b]
    python benchmarks/realbugs_extract.py notice   # rewrite realbugs/NOTICE from every meta.json
    python benchmarks/realbugs_extract.py check-all MIRRORS   # every pair; clones at MIRRORS/owner+name/repo

``show`` prints the named definitions (functions, classes, assignments, in file order) and the
module's standard-library import statements that bind a name they use, and lists the names they use
that are neither builtins nor defined by what was copied (a helper to copy from its own file, or a
third-party import that rules the pair out). A project-internal import (``from .i18n import
_gettext as _``) is replaced by the helper copied from its file plus, where the name differs, an
adapter line recorded in ``meta.json`` (``{"adapter": "_ = _gettext"}``): the only lines of a side
that are not copied verbatim. ``check`` compares a pair's ``a.py``/``b.py`` with what its ``meta.json`` says was
copied; ``write`` (re)writes them.

``GIT_DIR`` is a clone or bare mirror of the project; the commits are read with ``git show``.
The sides are not committed (they are the projects' code): ``suite.py materialize`` writes them from
``meta.json`` with ``build_side``, and ``check-all`` then confirms nothing differs.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HEADER = "# Copied verbatim from {repository} at {commit}; see meta.json and ../NOTICE.\n"


def git_show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", git_dir, "show", f"{commit}:{path}"], capture_output=True, text=True,
                          check=True).stdout


def _bound_names(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if isinstance(node, ast.If | ast.Try):  # ``if TYPE_CHECKING:`` blocks, ``try: import x`` fallbacks
        branches = [*node.body, *node.orelse, *(s for h in getattr(node, "handlers", []) for s in h.body)]
        return {name for statement in branches for name in _bound_names(statement)}
    names: set[str] = set()
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    for target in targets:
        if target is not None:
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def _used_names(nodes: list[ast.stmt]) -> set[str]:
    used = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                used.add(sub.id)
    return used


def _segment(source: str, node: ast.stmt) -> str:
    lines = source.splitlines(keepends=True)
    start = min([node.lineno, *[d.lineno for d in getattr(node, "decorator_list", [])]])
    return "".join(lines[start - 1: node.end_lineno])


def _local_names(nodes: list[ast.stmt]) -> set[str]:
    """Names bound anywhere inside ``nodes`` (parameters, assignments, imports, handlers)."""
    local = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.arg):
                local.add(sub.arg)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                local.add(sub.id)
            elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                local.add(sub.name)
            elif isinstance(sub, ast.alias):
                local.add((sub.asname or sub.name).split(".")[0])
            elif isinstance(sub, ast.ExceptHandler) and sub.name:
                local.add(sub.name)
    return local


def free_names(source: str) -> list[str]:
    """Names a module uses that nothing in it binds and that are not builtins (a missing helper)."""
    nodes = ast.parse(source).body
    module_globals = {"__builtins__", "__name__", "__file__", "__spec__", "__doc__", "__package__"}
    return sorted(_used_names(nodes) - _local_names(nodes) - set(dir(builtins)) - module_globals)


def _is_stdlib(node: ast.Import | ast.ImportFrom) -> bool:
    """An import of the standard library only (project and third-party imports are never copied:
    the helpers they name are copied from their own files instead)."""
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and (node.module or "").split(".")[0] in sys.stdlib_module_names
    return all(alias.name.split(".")[0] in sys.stdlib_module_names for alias in node.names)


def _called(node: ast.stmt) -> str | None:
    """The function a top-level expression statement calls (``_irregular('person', 'people')``)."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
        return node.value.func.id
    return None


def extract(source: str, names: list[str], calls: list[str] = ()) -> tuple[list[str], str]:
    """The module's ``from __future__`` imports and the import statements that bind a name the
    named definitions use; and the definitions, verbatim and in file order, with the top-level
    calls of the functions in ``calls`` (module set-up the definitions depend on)."""
    tree = ast.parse(source)
    wanted = set(names)
    picked = [node for node in tree.body if _bound_names(node) & wanted or _called(node) in calls]
    missing = wanted - {name for node in picked for name in _bound_names(node)}
    if missing:
        raise SystemExit(f"not defined at top level: {', '.join(sorted(missing))}")
    needed = _used_names(picked) - {name for node in picked for name in _bound_names(node)}
    imports = [
        node for node in tree.body
        if (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        or (isinstance(node, ast.Import | ast.ImportFrom) and _is_stdlib(node) and _bound_names(node) & needed)
    ]
    return [_segment(source, node) for node in imports], "\n\n".join(_segment(source, node) for node in picked)


def project_imports(source: str, names: list[str], calls: list[str] = ()) -> set[str]:
    """Names the named definitions use that their module imports from the project or a third party:
    each must be copied from its own file, even one that shadows a builtin (``format``)."""
    tree = ast.parse(source)
    picked = [node for node in tree.body if _bound_names(node) & set(names) or _called(node) in calls]
    needed = _used_names(picked)
    return {
        name for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom) and not _is_stdlib(node)
        and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        for name in _bound_names(node) & needed
    }


def mirror_of(mirrors: Path, meta: dict[str, Any]) -> Path:
    """The git clone of a pair's project under ``mirrors`` (``owner+name/repo``)."""
    owner_name = meta["provenance"]["repository"].removeprefix("https://github.com/").replace("/", "+")
    return Path(mirrors) / owner_name / "repo"


def unprovided_imports(git_dir: str, meta: dict[str, Any], side: str) -> list[str]:
    """Project imports a side's definitions use that no copied piece or adapter defines."""
    provenance = meta["provenance"]
    commit = provenance[f"commit_{side}"]
    wanted, defined = set(), set()
    for piece in provenance["copied"][side]:
        if "adapter" in piece:
            defined |= {name for node in ast.parse(piece["adapter"]).body for name in _bound_names(node)}
            continue
        source = git_show(git_dir, piece.get("commit", commit), piece["path"])
        wanted |= project_imports(source, piece["names"], piece.get("calls", []))
        defined |= {name for node in ast.parse(source).body if _bound_names(node) & set(piece["names"])
                    for name in _bound_names(node)}
    return sorted(wanted - defined)


def build_side(git_dir: str, meta: dict[str, Any], side: str) -> str:
    """One side's source: each copied piece (or adapter line) in order, under a one-line header."""
    provenance = meta["provenance"]
    commit = provenance[f"commit_{side}"]
    imports: dict[str, None] = {}
    parts = []
    for piece in provenance["copied"][side]:
        if "adapter" in piece:
            parts.append(piece["adapter"])
            continue
        piece_imports, definitions = extract(git_show(git_dir, piece.get("commit", commit), piece["path"]),
                                             piece["names"], piece.get("calls", []))
        imports.update(dict.fromkeys(piece_imports))
        parts.append(definitions)
    # ``from __future__`` first (Python requires it), then the other imports, once each
    ordered = sorted(imports, key=lambda line: not line.startswith("from __future__"))
    body = "".join(ordered) + "\n\n" + "\n\n\n".join(part.strip("\n") for part in parts) + "\n"
    return HEADER.format(repository=provenance["repository"], commit=commit) + body


LICENSE_TEXTS = {
    "MIT": "MIT License",
    "Apache-2.0": "Apache License 2.0",
    "Apache-2.0 OR BSD-2-Clause": "dual: Apache License 2.0 or BSD 2-Clause License",
    "Apache-2.0 OR BSD-3-Clause": "dual: Apache License 2.0 or BSD 3-Clause License",
    "BSD-2-Clause": "BSD 2-Clause License",
    "BSD-3-Clause": "BSD 3-Clause License",
    "Unlicense": "The Unlicense (public domain dedication)",
}


def write_notice(suite: Path) -> Path:
    """``NOTICE``: the origin and license of every copied file, grouped by project."""
    by_project: dict[str, list[str]] = {}
    licenses: dict[str, str] = {}
    for meta_path in sorted(suite.glob("*/meta.json")):
        meta = json.loads(meta_path.read_text())
        provenance = meta["provenance"]
        repository = provenance["repository"]
        licenses[repository] = provenance["license"]
        for side in ("a", "b"):
            commit = provenance[f"commit_{side}"]
            paths = sorted({piece["path"] for piece in provenance["copied"][side] if "path" in piece})
            by_project.setdefault(repository, []).append(
                f"  {meta_path.parent.name}/{side}.py: {', '.join(paths)} at {commit}"
            )
    lines = [
        "The files a.py and b.py of every directory here are not in this repository: they are copied",
        "out of the projects below, at the commits named, by `python benchmarks/suite.py materialize`",
        "from local git clones, under each project's license (the license text is in each repository at",
        "that commit). Only definitions are copied, verbatim; the adapter lines listed in each meta.json",
        "(standing in for project-internal imports) are the only other lines.",
        "",
    ]
    for repository, entries in sorted(by_project.items()):
        lines += [f"{repository} ({LICENSE_TEXTS.get(licenses[repository], licenses[repository])})", *entries, ""]
    target = suite / "NOTICE"
    target.write_text("\n".join(lines))
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show")
    show.add_argument("git_dir")
    show.add_argument("commit")
    show.add_argument("path")
    show.add_argument("names")
    sub.add_parser("notice")
    check_all = sub.add_parser("check-all")
    check_all.add_argument("mirrors")
    for name in ("check", "write"):
        command = sub.add_parser(name)
        command.add_argument("git_dir")
        command.add_argument("pair_dir")
        command.add_argument("--side", choices=["a", "b"])
    options = parser.parse_args()
    if options.command == "show":
        imports, definitions = extract(git_show(options.git_dir, options.commit, options.path),
                                       options.names.split(","))
        text = "".join(imports) + "\n\n" + definitions + "\n"
        print(text)
        print(f"# names used and not copied: {', '.join(free_names(text)) or 'none'}", file=sys.stderr)
        return 0
    if options.command == "check-all":
        status = 0
        for meta_path in sorted((Path(__file__).resolve().parent / "realbugs").glob("*/meta.json")):
            meta = json.loads(meta_path.read_text())
            git_dir = str(mirror_of(Path(options.mirrors), meta))
            for side in ("a", "b"):
                same = (meta_path.parent / f"{side}.py").read_text() == build_side(git_dir, meta, side)
                unprovided = unprovided_imports(git_dir, meta, side)
                status |= not same or bool(unprovided)
                print(f"{'same   ' if same else 'DIFFERS'} {meta_path.parent.name}/{side}.py"
                      + (f" (project imports not provided: {', '.join(unprovided)})" if unprovided else ""))
        return status
    if options.command == "notice":
        print(f"wrote {write_notice(Path(__file__).resolve().parent / 'realbugs')}")
        return 0
    pair = Path(options.pair_dir)
    meta = json.loads((pair / "meta.json").read_text())
    status = 0
    for side in [options.side] if options.side else ["a", "b"]:
        text = build_side(options.git_dir, meta, side)
        target = pair / f"{side}.py"
        if options.command == "write":
            target.write_text(text)
            missing = sorted(set(free_names(text)) | set(unprovided_imports(options.git_dir, meta, side)))
            print(f"wrote {target}; names used and not copied: {', '.join(missing) or 'none'}")
        elif target.read_text() != text:
            print(f"DIFFERS {target}")
            status = 1
        else:
            print(f"same    {target}")
    return status


if __name__ == "__main__":
    sys.exit(main())
