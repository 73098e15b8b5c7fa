"""The house-order figures of the package (issue 33): how big the code is and where it is too big.

    .venv/bin/python benchmarks/house.py [--rev REV ...] [--list]

Measured by walking the syntax trees of ``src/divergent`` (of the work tree, or of each ``--rev`` as
git has it), nothing imported or run:

* files and lines (every ``.py`` file, every line);
* functions longer than 80 lines;
* functions with more than 8 parameters (``self``/``cls`` not counted; ``*args`` and ``**kwargs``
  count one each);
* the command functions among them (the functions decorated ``@app.command`` or registered on a
  typer group in ``cli/``) with more than 8 parameters: an option group counts as one;
* ``Search`` (``search/loop.py``): its instance attributes (the distinct names it assigns to
  ``self.NAME``, in any method), its properties, and the assignments to ``self.NAME`` in all;
* the largest module, and the modules past the 600-line limit of ``tests/test_architecture.py``.

``--list`` names the functions behind each count. Prints one figure per line.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path("src/divergent")
LONG = 80
MANY = 8
MODULE_LIMIT = 600


@dataclass
class Figures:
    files: int = 0
    lines: int = 0
    long_functions: list[str] = field(default_factory=list)
    many_parameters: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    search_attributes: set[str] = field(default_factory=set)
    search_properties: set[str] = field(default_factory=set)
    search_assignments: int = 0
    largest: tuple[int, str] = (0, "")
    over_limit: list[str] = field(default_factory=list)


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    count = len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs) + bool(args.vararg) + bool(args.kwarg)
    positional = [*args.posonlyargs, *args.args]
    if positional and positional[0].arg in ("self", "cls"):
        count -= 1
    return count


def is_command(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated ``@something.command(...)`` (typer's app or a group)."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "command":
            return True
    return False


def search_class(tree: ast.Module, figures: Figures) -> None:
    for node in tree.body:
        if not (isinstance(node, ast.ClassDef) and node.name == "Search"):
            continue
        for item in ast.walk(node):
            if isinstance(item, ast.FunctionDef) and any(
                    (isinstance(d, ast.Name) and d.id in ("property", "cached_property"))
                    or (isinstance(d, ast.Attribute) and d.attr == "cached_property") for d in item.decorator_list):
                figures.search_properties.add(item.name)
            targets: list[ast.expr] = []
            if isinstance(item, ast.Assign):
                targets = [t for target in item.targets for t in (target.elts if isinstance(target, ast.Tuple)
                                                                  else [target])]
            elif isinstance(item, ast.AnnAssign | ast.AugAssign):
                targets = [item.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    figures.search_attributes.add(target.attr)
                    figures.search_assignments += 1


def measure(root: Path) -> Figures:
    figures = Figures()
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(root))
        count = len(text.splitlines())
        figures.files += 1
        figures.lines += count
        figures.largest = max(figures.largest, (count, name))
        if count > MODULE_LIMIT:
            figures.over_limit.append(f"{name} ({count})")
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            where = f"{name}:{node.lineno} {node.name}"
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > LONG:
                figures.long_functions.append(f"{where} ({length} lines)")
            many = parameters(node)
            if many > MANY:
                figures.many_parameters.append(f"{where} ({many})")
                if name.startswith("cli/") and is_command(node):
                    figures.commands.append(f"{where} ({many})")
        if name == "search/loop.py":
            search_class(tree, figures)
    return figures


def at_revision(rev: str, into: Path) -> Path:
    """``src/divergent`` as ``rev`` has it, unpacked under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, str(PACKAGE)],
                             capture_output=True, check=True).stdout
    target = into / rev.replace("/", "_")
    target.mkdir()
    with tempfile.TemporaryFile() as handle:
        handle.write(archive)
        handle.seek(0)
        with tarfile.open(fileobj=handle) as tar:
            tar.extractall(target, filter="data")
    return target / PACKAGE


def report(label: str, figures: Figures, listed: bool) -> None:
    print(f"== {label}")
    print(f"files {figures.files}")
    print(f"lines {figures.lines:,}")
    print(f"functions > {LONG} lines {len(figures.long_functions)}")
    print(f"functions > {MANY} parameters {len(figures.many_parameters)}")
    print(f"command functions > {MANY} parameters {len(figures.commands)}")
    print(f"Search instance attributes {len(figures.search_attributes)}, properties {len(figures.search_properties)}, "
          f"assignments to self.NAME {figures.search_assignments}")
    print(f"largest module {figures.largest[1]} ({figures.largest[0]} lines); over {MODULE_LIMIT}: "
          f"{', '.join(figures.over_limit) or 'none'}")
    if listed:
        for title, items in (("long", figures.long_functions), ("many parameters", figures.many_parameters),
                             ("commands", figures.commands),
                             ("Search attributes", sorted(figures.search_attributes)),
                             ("Search properties", sorted(figures.search_properties))):
            print(f"-- {title}")
            for item in items:
                print(f"   {item}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", action="append", default=[], help="a git revision to measure (repeatable)")
    parser.add_argument("--list", action="store_true", help="name what each count counts")
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        for rev in arguments.rev:
            report(rev, measure(at_revision(rev, Path(scratch))), arguments.list)
    report("work tree", measure(ROOT / PACKAGE), arguments.list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
