"""Python source files: reading and parsing them, finding their top-level functions, and where
they are imported from (package layout, module names), to build an :class:`~divergent.programs.PythonFunction`.

The code is read as text only; the :class:`~divergent.programs.PythonFunction` built here tells the
sandbox worker how to import it *as it would be imported normally* (module name and ``sys.path``
root, so relative imports keep working).
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import keyword
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from divergent.errors import LoadError
from divergent.load.git import file_at_revision
from divergent.load.signatures import FunctionNode, signature_from_ast
from divergent.load.targets import parse_target
from divergent.programs import PythonFunction

__all__ = [
    "build_implementation",
    "load_implementation",
    "load_source",
    "module_identifier",
    "package_layout",
    "parse_module",
    "read_source",
    "root_for_module",
    "top_level_functions",
]


# --------------------------------------------------------------------------------------------
# Reading and parsing source


def read_source(file: Path, display: str) -> str:
    """The text of a source file (LoadError naming ``display`` when it cannot be read or decoded)."""
    try:
        data = file.read_bytes()
    except OSError as error:
        raise LoadError(f"{display}: cannot read: {error.strerror or error}") from None
    try:
        # honours a PEP 263 coding cookie and a BOM, like the import system does
        return importlib.util.decode_source(data)
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        raise LoadError(f"{display}: cannot decode source: {error}") from None


def parse_module(source: str, display: str) -> ast.Module:
    """The AST of a module's source (LoadError with the line when it is not valid Python)."""
    try:
        return ast.parse(source, filename=display)
    except SyntaxError as error:
        where = f"{display}:{error.lineno}" if error.lineno else display
        line = f"\n    {error.text.strip()}" if error.text and error.text.strip() else ""
        raise LoadError(f"{where}: syntax error: {error.msg}{line}") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise LoadError(f"{display}: cannot parse: {error}") from None


def top_level_functions(tree: ast.Module) -> dict[str, FunctionNode]:
    """Functions bound at module level, in source order (a later definition replaces an earlier one).

    Definitions inside module-level ``if``/``try``/``with`` blocks count (version-dependent code),
    and so does ``name = lambda ...``.
    """
    found: dict[str, FunctionNode] = {}

    def visit(statements: Iterable[ast.stmt]) -> None:
        for statement in statements:
            match statement:
                case ast.FunctionDef() | ast.AsyncFunctionDef():
                    found[statement.name] = statement
                case ast.Assign(targets=[ast.Name(id=name)], value=ast.Lambda() as lambda_node):
                    found[name] = lambda_node
                case ast.If() | ast.With():
                    visit(statement.body)
                    visit(getattr(statement, "orelse", ()))
                case ast.Try() | ast.TryStar():
                    visit(statement.body)
                    for handler in statement.handlers:
                        visit(handler.body)
                    visit(statement.orelse)
                    visit(statement.finalbody)

    visit(tree.body)
    return found


def _choose_function(functions: dict[str, FunctionNode], wanted: str | None, display: str, hint: str) -> str:
    names = list(functions)
    if wanted is not None:
        if wanted in functions:
            return wanted
        if not names:
            raise LoadError(f"{display} has no function {wanted!r}: it defines no top-level functions")
        raise LoadError(f"{display} has no function {wanted!r}; it defines: {', '.join(names)}")
    if not names:  # most often a script: the whole program is what to compare
        raise LoadError(f"{display} defines no top-level function; if it is a script reading stdin, add --stdin "
                        "to compare whole programs")
    if len(names) > 1:
        raise LoadError(f"ambiguous: {display} defines {', '.join(names)}; {hint}")
    return names[0]


def build_implementation(
    source: str,
    *,
    function: str | None,
    display: str,
    hint: str,
    label: str,
    origin: str,
    path: str | None = None,
    module_name: str = "divergent_impl",
    sys_path: tuple[str, ...] = (),
    setup_code: str = "",
) -> PythonFunction:
    """The implementation of the chosen top-level function of ``source`` (``display`` names it in
    errors; ``hint`` says how to choose when there are several)."""
    tree = parse_module(source, display)
    functions = top_level_functions(tree)
    name = _choose_function(functions, function, display, hint)
    node = functions[name]
    if isinstance(node, ast.AsyncFunctionDef):
        raise LoadError(f"{display}: {name} is 'async def'; divergent compares plain (synchronous) functions")
    return PythonFunction(
        label=label,
        entry_point=name,
        source=source,
        signature=signature_from_ast(node),
        path=path,
        module_name=module_name,
        sys_path=sys_path,
        setup_code=setup_code,
        origin=origin,
    )


# --------------------------------------------------------------------------------------------
# Where a file is imported from


def module_identifier(stem: str) -> str:
    """A valid module name made from a file name that is not one (``my-file`` -> ``my_file``)."""
    name = "".join(char if char.isalnum() or char == "_" else "_" for char in stem) or "module"
    if name[0].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) else name


def package_layout(file: Path) -> tuple[str, tuple[str, ...]]:
    """The module name and sys.path root under which ``file`` is imported normally.

    Climbing through directories that hold an ``__init__.py`` gives the dotted name, so the
    module's relative imports resolve in the worker exactly as they do for the user.
    """
    stem = file.stem
    if not stem.isidentifier() or keyword.iskeyword(stem):
        # not importable by name anyway: a plain module next to its siblings
        return module_identifier(stem), (str(file.parent),)
    parts = [] if stem == "__init__" else [stem]
    directory = file.parent
    while (
        (directory / "__init__.py").is_file()
        and directory.name.isidentifier()
        and not keyword.iskeyword(directory.name)
        and directory.parent != directory
    ):
        parts.insert(0, directory.name)
        directory = directory.parent
    if not parts:
        return module_identifier(stem), (str(file.parent),)
    return ".".join(parts), (str(directory),)


def root_for_module(file: Path, module_name: str) -> Path | None:
    """The sys.path entry from which ``file`` is importable as ``module_name``, if the layout agrees."""
    parts = module_name.split(".")
    directories = parts if file.stem == "__init__" else parts[:-1]
    if file.stem != "__init__" and file.stem != parts[-1]:
        return None
    directory = file.parent
    for expected in reversed(directories):
        if directory.name != expected:
            return None
        directory = directory.parent
    return directory


def _locate_module(dotted: str, cwd: Path, spec: str) -> tuple[Path, Path]:
    """Find a module's source file and its sys.path root, without importing anything.

    ``PathFinder`` only looks at the file system: parent packages are not imported (their
    ``__init__.py`` would run code).
    """
    entries: list[str] = []
    for entry in [str(cwd), *sys.path]:
        absolute = os.path.abspath(entry or os.getcwd())
        if absolute not in entries and os.path.isdir(absolute):
            entries.append(absolute)
    names = dotted.split(".")
    for root in entries:
        found = importlib.machinery.PathFinder.find_spec(names[0], [root])
        if found is None:
            continue
        for depth in range(1, len(names)):
            locations = found.submodule_search_locations
            prefix = ".".join(names[:depth])
            if locations is None:
                raise LoadError(f"{spec}: {prefix} is a module, not a package, so it has no {names[depth]}")
            found = importlib.machinery.PathFinder.find_spec(".".join(names[: depth + 1]), list(locations))
            if found is None:
                raise LoadError(f"{spec}: package {prefix} ({root}) has no module {names[depth]}")
        origin = found.origin
        if origin is None or not found.has_location:
            raise LoadError(f"{spec}: {dotted} is a namespace package with no code of its own")
        if not origin.endswith(".py") or not os.path.isfile(origin):
            raise LoadError(f"{spec}: {dotted} is not Python source ({origin})")
        return Path(origin), Path(root)
    raise LoadError(f"{spec}: no file or module named {dotted!r} (searched {cwd} and sys.path)")


# --------------------------------------------------------------------------------------------
# Loaders


def load_implementation(
    spec: str, *, function: str | None = None, label: str | None = None, cwd: Path | None = None
) -> PythonFunction:
    """Load one implementation from a spec (see :func:`parse_target`), reading it with ``ast`` only."""
    base = Path(cwd) if cwd is not None else Path.cwd()
    target = parse_target(spec, function=function, cwd=base)
    if target.kind == "path":
        assert target.path is not None
        file = Path(os.path.abspath(base / target.path))
        if not file.exists():
            raise LoadError(f"{target.path}: no such file")
        if not file.is_file():
            raise LoadError(f"{target.path}: not a file")
        module_name, sys_path = package_layout(file)
        display, hint_spec = target.path, target.path
    elif target.kind == "module":
        assert target.module is not None
        file, root = _locate_module(target.module, base, spec)
        module_name, sys_path = target.module, (str(root),)
        display, hint_spec = f"{target.module} ({file})", target.module
    else:
        file = file_at_revision(target, base)
        module_name, sys_path = package_layout(file)
        display = hint_spec = f"{target.revision}:{target.path}"
    source = read_source(file, display)
    return build_implementation(
        source,
        function=target.function,
        display=display,
        hint=f"pass --function or {hint_spec}:NAME",
        label=label if label is not None else spec,
        origin=spec,
        path=str(file),
        module_name=module_name,
        sys_path=sys_path,
    )


def load_source(source: str, *, function: str | None, label: str) -> PythonFunction:
    """An implementation given as source text (e.g. a model's sample); the worker runs it as a module."""
    return build_implementation(
        source,
        function=function,
        display=label,
        hint="pass the function name",
        label=label,
        origin=label,
    )
