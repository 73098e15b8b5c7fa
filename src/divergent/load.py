"""Load the implementations to compare, and seed inputs for them, without running any of their code.

Implementation code is untrusted: this module reads it only as text, with :mod:`ast` (and ``git``
for revisions). Nothing is imported or executed in this process; annotations are resolved by the
safe resolver of :mod:`divergent.annotations`, and seed values are built by a literal-only
evaluator. The sandbox worker is the only place where implementation code runs, and the
:class:`~divergent.model.Implementation` built here tells it how to import the code *as it would
be imported normally* (module name and ``sys.path`` root, so relative imports keep working).

Specs understood by :func:`parse_target`::

    path.py                 a file (its only function, or --function NAME)
    path.py:function        a function in a file
    module.sub:function     a module importable from the current directory or sys.path
    REV:path.py:function    a file at a git revision, e.g. HEAD~1:pkg/util.py:slugify
    REV:path.py             idem, with --function NAME or a single function
"""

from __future__ import annotations

import ast
import builtins
import decimal
import dis
import doctest
import fractions
import importlib.machinery
import importlib.util
import inspect
import keyword
import math
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from divergent.annotations import analyze_annotation, dotted_name, resolve_annotation
from divergent.errors import InvalidArgument, LoadError, MissingSeeds, SignatureMismatch
from divergent.model import Implementation, Input, Parameter, ParameterKind, Signature

__all__ = [
    "Seeds",
    "Target",
    "annotation_warnings",
    "check_generatable",
    "common_signature",
    "evaluate_literal",
    "fit_seeds",
    "load_callable",
    "load_implementation",
    "load_source",
    "parse_target",
    "seeds_from_asserts",
    "seeds_from_docstring",
    "seeds_from_file",
    "signature_from_ast",
]

TargetKind = Literal["path", "module", "git"]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


# --------------------------------------------------------------------------------------------
# Specs


@dataclass(frozen=True)
class Target:
    """What a spec names, before anything is read."""

    #: the spec as the user wrote it
    spec: str
    kind: TargetKind
    #: "path": the file as written (relative to cwd); "git": the path inside the revision
    path: str | None = None
    #: "module": the dotted module name
    module: str | None = None
    #: "git": the revision, e.g. ``HEAD~1``
    revision: str | None = None
    #: the function named by the spec or by ``--function``; None means "the only one"
    function: str | None = None


def _looks_like_path(text: str) -> bool:
    return text.endswith(".py") or "/" in text or os.sep in text


def _is_dotted_identifier(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def _checked_function_name(name: str, spec: str) -> str:
    if "." in name and _is_dotted_identifier(name):
        raise LoadError(
            f"{spec}: {name!r} is a method or nested name; divergent compares top-level functions"
        )
    if not name.isidentifier() or keyword.iskeyword(name):
        raise LoadError(f"{spec}: {name!r} is not a function name")
    return name


def parse_target(spec: str, *, function: str | None = None, cwd: Path | None = None) -> Target:
    """Work out what ``spec`` names: a file, a module, or a file at a git revision.

    A path that exists on disk always wins (so odd file names still load); then the number of
    colons and the shape of each part decide. ``function`` (``--function``) applies when the spec
    names none; naming two different functions is an error.
    """
    text = spec.strip()
    if not text:
        raise InvalidArgument(
            "empty implementation spec: expected path.py[:function], module:function or REV:path.py[:function]"
        )
    base = Path(cwd) if cwd is not None else Path.cwd()

    def is_file(candidate: str) -> bool:
        return (base / candidate).is_file()

    def finish(target: Target) -> Target:
        named = target.function
        if named is not None and function is not None and named != function:
            raise InvalidArgument(
                f"{spec} names function {named!r} but --function {function!r} was also given"
            )
        chosen = named if named is not None else function
        if chosen is not None:
            chosen = _checked_function_name(chosen, spec)
        return replace(target, function=chosen)

    if is_file(text):
        return finish(Target(spec, "path", path=text))
    parts = text.split(":")
    if len(parts) == 1:
        if _looks_like_path(text) or not _is_dotted_identifier(text):
            return finish(Target(spec, "path", path=text))
        return finish(Target(spec, "module", module=text))
    if len(parts) == 2:
        head, tail = parts
        if is_file(head) or (head.endswith(".py") and not _looks_like_path(tail)):
            return finish(Target(spec, "path", path=head, function=tail or None))
        if _looks_like_path(tail):
            return finish(Target(spec, "git", revision=head, path=tail))
        if _looks_like_path(head):
            return finish(Target(spec, "path", path=head, function=tail or None))
        if _is_dotted_identifier(head):
            return finish(Target(spec, "module", module=head, function=tail or None))
        raise LoadError(
            f"cannot understand {spec!r}: expected path.py[:function], module:function or REV:path.py[:function]"
        )
    # two or more colons: a path containing a colon that exists, else REV:path:function
    # (rsplit keeps revisions that contain a colon themselves, such as ':/fix typo')
    head, name = text.rsplit(":", 1)
    if is_file(head):
        return finish(Target(spec, "path", path=head, function=name or None))
    revision, path, name = text.rsplit(":", 2)
    if not revision or not path:
        raise LoadError(f"cannot understand {spec!r}: expected REV:path.py:function")
    return finish(Target(spec, "git", revision=revision, path=path, function=name or None))


# --------------------------------------------------------------------------------------------
# Reading and parsing source


def _read_source(file: Path, display: str) -> str:
    try:
        data = file.read_bytes()
    except OSError as error:
        raise LoadError(f"{display}: cannot read: {error.strerror or error}") from None
    try:
        # honours a PEP 263 coding cookie and a BOM, like the import system does
        return importlib.util.decode_source(data)
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        raise LoadError(f"{display}: cannot decode source: {error}") from None


def _parse_module(source: str, display: str) -> ast.Module:
    try:
        return ast.parse(source, filename=display)
    except SyntaxError as error:
        where = f"{display}:{error.lineno}" if error.lineno else display
        line = f"\n    {error.text.strip()}" if error.text and error.text.strip() else ""
        raise LoadError(f"{where}: syntax error: {error.msg}{line}") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise LoadError(f"{display}: cannot parse: {error}") from None


def _top_level_functions(tree: ast.Module) -> dict[str, FunctionNode]:
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
    if not names:
        raise LoadError(f"{display} defines no top-level function")
    if len(names) > 1:
        raise LoadError(f"ambiguous: {display} defines {', '.join(names)}; {hint}")
    return names[0]


def _parameter(arg: ast.arg, kind: ParameterKind, default: ast.expr | None) -> Parameter:
    annotation = arg.annotation
    return Parameter(
        name=arg.arg,
        kind=kind,
        annotation_source=ast.unparse(annotation) if annotation is not None else None,
        annotation=resolve_annotation(annotation) if annotation is not None else None,
        has_default=default is not None,
        default_source=ast.unparse(default) if default is not None else None,
    )


def signature_from_ast(node: FunctionNode) -> Signature:
    """The signature of a ``def`` or ``lambda``, read from its AST (annotations resolved safely)."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    # defaults belong to the last positional parameters
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults.extend(arguments.defaults)
    parameters: list[Parameter] = []
    for index, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = (
            ParameterKind.POSITIONAL_ONLY
            if index < len(arguments.posonlyargs)
            else ParameterKind.POSITIONAL_OR_KEYWORD
        )
        parameters.append(_parameter(arg, kind, default))
    if arguments.vararg is not None:
        parameters.append(_parameter(arguments.vararg, ParameterKind.VAR_POSITIONAL, None))
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        parameters.append(_parameter(arg, ParameterKind.KEYWORD_ONLY, default))
    if arguments.kwarg is not None:
        parameters.append(_parameter(arguments.kwarg, ParameterKind.VAR_KEYWORD, None))
    returns = getattr(node, "returns", None)
    return Signature(
        parameters=tuple(parameters),
        return_annotation_source=ast.unparse(returns) if returns is not None else None,
    )


def _build_implementation(
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
) -> Implementation:
    tree = _parse_module(source, display)
    functions = _top_level_functions(tree)
    name = _choose_function(functions, function, display, hint)
    node = functions[name]
    if isinstance(node, ast.AsyncFunctionDef):
        raise LoadError(f"{display}: {name} is 'async def'; divergent compares plain (synchronous) functions")
    return Implementation(
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


def _module_identifier(stem: str) -> str:
    name = "".join(char if char.isalnum() or char == "_" else "_" for char in stem) or "module"
    if name[0].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) else name


def _package_layout(file: Path) -> tuple[str, tuple[str, ...]]:
    """The module name and sys.path root under which ``file`` is imported normally.

    Climbing through directories that hold an ``__init__.py`` gives the dotted name, so the
    module's relative imports resolve in the worker exactly as they do for the user.
    """
    stem = file.stem
    if not stem.isidentifier() or keyword.iskeyword(stem):
        # not importable by name anyway: a plain module next to its siblings
        return _module_identifier(stem), (str(file.parent),)
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
        return _module_identifier(stem), (str(file.parent),)
    return ".".join(parts), (str(directory),)


def _root_for_module(file: Path, module_name: str) -> Path | None:
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
# Git revisions


def _git(arguments: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *arguments], cwd=cwd, capture_output=True, text=True, check=False, timeout=120
        )
    except FileNotFoundError:
        raise LoadError(
            "git is not installed, so revisions such as HEAD~1:path.py cannot be loaded"
        ) from None
    except subprocess.TimeoutExpired:
        raise LoadError(f"git {' '.join(arguments)} took too long") from None


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "unknown error"


def _resolve_commit(revision: str, cwd: Path, spec: str) -> str:
    if revision.startswith("-"):
        raise LoadError(f"{spec}: {revision!r} is not a git revision")
    named = _git(["rev-parse", "--verify", "--quiet", revision], cwd)
    if named.returncode == 0:
        # peel separately: appending ^{commit} to ':/message' would change the search
        peeled = _git(["rev-parse", "--verify", "--quiet", f"{named.stdout.strip()}^{{commit}}"], cwd)
        if peeled.returncode == 0:
            return peeled.stdout.strip()
        raise LoadError(f"{spec}: git revision {revision!r} does not name a commit")
    # --verify --quiet says nothing: ask again for git's own explanation
    explained = _git(["rev-parse", revision, "--"], cwd)
    reason = _first_line(explained.stderr) if explained.returncode else f"{revision} does not name a commit"
    raise LoadError(f"{spec}: bad git revision {revision!r}: {reason}")


def _private_cache_root() -> Path:
    """A directory for exported trees that only we can write to (a shared /tmp is hostile)."""
    temporary = Path(tempfile.gettempdir())
    for name in ("divergent-git", f"divergent-git-{os.getuid()}"):
        root = temporary / name
        try:
            root.mkdir(mode=0o755, exist_ok=True)
            status = root.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid() and not status.st_mode & 0o022:
            return root
    raise LoadError(f"cannot create a private cache directory for git revisions under {temporary}")


def _export_commit(commit: str, cwd: Path, spec: str) -> Path:
    """The whole tree at ``commit``, exported once into a cache directory and reused afterwards."""
    root = _private_cache_root()
    final = root / commit
    if final.is_dir():
        return final
    staging = Path(tempfile.mkdtemp(prefix=f".{commit}.", dir=root))
    try:
        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(
                ["git", "archive", "--format=tar", commit], cwd=cwd, stdout=subprocess.PIPE, stderr=errors
            )
            assert process.stdout is not None
            try:
                with tarfile.open(fileobj=process.stdout, mode="r|") as archive:
                    for member in archive:
                        try:
                            archive.extract(member, staging, filter="data")
                        except tarfile.FilterError:
                            continue  # a link leaving the tree: never needed to import the code
            except tarfile.TarError as error:
                process.kill()
                raise LoadError(f"{spec}: cannot export {commit[:12]}: {error}") from None
            finally:
                process.stdout.close()
                returncode = process.wait()
            if returncode != 0:
                errors.seek(0)
                message = _first_line(errors.read().decode(errors="replace"))
                raise LoadError(f"{spec}: git archive failed: {message}")
        staging.chmod(0o755)
        try:
            staging.rename(final)
        except OSError:
            # another process exported the same commit first: use theirs
            if not final.is_dir():
                raise
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final


def _file_at_revision(target: Target, cwd: Path) -> Path:
    assert target.revision is not None and target.path is not None
    commit = _resolve_commit(target.revision, cwd, target.spec)
    prefix = _git(["rev-parse", "--show-prefix"], cwd).stdout.strip()
    tree = _export_commit(commit, cwd, target.spec)
    inside = target.path
    if os.path.isabs(inside):
        toplevel = _git(["rev-parse", "--show-toplevel"], cwd).stdout.strip()
        inside = os.path.relpath(inside, toplevel)
    # like a path on disk, the path is relative to the current directory; the repository root
    # is tried second because that is how `git show REV:path` spells it
    for candidate in (os.path.join(prefix, inside), inside):
        normal = os.path.normpath(candidate)
        if normal.startswith(".."):
            continue
        file = tree / normal
        if file.is_file():
            return file
    raise LoadError(
        f"{target.spec}: {target.path} does not exist at revision {target.revision} ({commit[:12]})"
    )


# --------------------------------------------------------------------------------------------
# Public loaders


def load_implementation(
    spec: str, *, function: str | None = None, label: str | None = None, cwd: Path | None = None
) -> Implementation:
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
        module_name, sys_path = _package_layout(file)
        display, hint_spec = target.path, target.path
    elif target.kind == "module":
        assert target.module is not None
        file, root = _locate_module(target.module, base, spec)
        module_name, sys_path = target.module, (str(root),)
        display, hint_spec = f"{target.module} ({file})", target.module
    else:
        file = _file_at_revision(target, base)
        module_name, sys_path = _package_layout(file)
        display = hint_spec = f"{target.revision}:{target.path}"
    source = _read_source(file, display)
    return _build_implementation(
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


def load_source(source: str, *, function: str | None, label: str) -> Implementation:
    """An implementation given as source text (e.g. a model's sample); the worker runs it as a module."""
    return _build_implementation(
        source,
        function=function,
        display=label,
        hint="pass the function name",
        label=label,
        origin=label,
    )


def _is_c_function(obj: object) -> bool:
    c_types = (
        types.BuiltinFunctionType,
        types.BuiltinMethodType,
        types.WrapperDescriptorType,
        types.MethodWrapperType,
        types.MethodDescriptorType,
        types.ClassMethodDescriptorType,
    )
    return isinstance(obj, c_types) or inspect.isbuiltin(obj) or inspect.ismethoddescriptor(obj)


def _global_names(code: types.CodeType) -> set[str]:
    """Module-level names a function reads (including in its comprehensions and inner functions)."""
    names: set[str] = set()
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(instruction.argval, str):
            names.add(instruction.argval)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


def _imports_binding(module_source: str | None, names: set[str]) -> tuple[str, set[str]]:
    """The module's absolute import statements that bind some of ``names``, and the names they bind."""
    if not module_source or not names:
        return "", set()
    try:
        tree = ast.parse(module_source)
    except (SyntaxError, ValueError):
        return "", set()
    statements: list[str] = []
    bound: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            aliases = [a for a in statement.names if (a.asname or a.name.split(".")[0]) in names]
            if aliases:
                statements.append(ast.unparse(ast.Import(names=aliases)))
                bound |= {a.asname or a.name.split(".")[0] for a in aliases}
        elif isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
            aliases = [a for a in statement.names if a.name != "*" and (a.asname or a.name) in names]
            if aliases:
                statements.append(
                    ast.unparse(ast.ImportFrom(module=statement.module, names=aliases, level=0))
                )
                bound |= {a.asname or a.name for a in aliases}
    return "\n".join(statements), bound


def _module_source_of(func: types.FunctionType) -> tuple[str | None, str | None]:
    """The text of the file that defines ``func`` (for imports and lambdas), and its path."""
    try:
        file = inspect.getsourcefile(func)
    except TypeError:
        return None, None
    if file is None:
        return None, None
    try:
        lines, _ = inspect.findsource(func)
    except (OSError, TypeError):
        return None, file
    return "".join(lines), file


def _find_lambda(func: types.FunctionType, module_source: str) -> tuple[ast.Module, ast.Lambda]:
    """The ``lambda`` node whose body the function's bytecode points at (several may share a line)."""
    try:
        tree = ast.parse(module_source)
    except (SyntaxError, ValueError) as error:
        raise LoadError(f"cannot read the source of {func.__qualname__}: {error}") from None
    spans = [
        (line, column)
        for line, end_line, column, end_column in func.__code__.co_positions()
        if line is not None
        and column is not None
        and end_line is not None
        and end_column is not None
        and (end_line, end_column) > (line, column)
    ]
    if not spans:
        raise LoadError(f"cannot locate the source of {func.__qualname__}")
    body_start = min(spans)
    argument_names = func.__code__.co_varnames[: func.__code__.co_argcount]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Lambda)
            and (node.body.lineno, node.body.col_offset) == body_start
            and tuple(a.arg for a in [*node.args.posonlyargs, *node.args.args]) == argument_names
        ):
            return tree, node
    raise LoadError(f"cannot locate the source of the lambda at line {func.__code__.co_firstlineno}")


def _lambda_name(tree: ast.Module, node: ast.Lambda, avoid: set[str]) -> str:
    """The name a lambda is assigned to (``square = lambda x: ...``), else a short free name."""
    for statement in ast.walk(tree):
        match statement:
            case ast.Assign(targets=[ast.Name(id=name)], value=value) if value is node:
                return name
    name = "f"
    while name in avoid:
        name += "_"
    return name


def _load_detached(func: types.FunctionType, outer: object, label: str | None) -> Implementation:
    """A nested function or lambda: sent to the sandbox as source, run there as a fresh module."""
    description = "a lambda" if func.__name__ == "<lambda>" else func.__qualname__
    # a nested function may refer to itself (recursion): that free variable is fine at module level
    captured = []
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or (), strict=False):
        try:
            contents = cell.cell_contents
        except ValueError:
            contents = None
        if contents is not func and contents is not outer:
            captured.append(name)
    if captured:
        raise LoadError(
            f"{description} is a closure over {', '.join(captured)}: the values it captures live in "
            "this process and cannot be sent to a sandbox; define it at module level or pass "
            "them as parameters"
        )
    module_source, file = _module_source_of(func)
    if func.__name__ == "<lambda>":
        if module_source is None:
            raise LoadError(f"cannot read the source of {description} (defined interactively?)")
        tree, node = _find_lambda(func, module_source)
        entry_point = _lambda_name(tree, node, _global_names(func.__code__))
        segment = ast.get_source_segment(module_source, node) or ast.unparse(node)
        body = f"{entry_point} = ({segment})\n" if "\n" in segment else f"{entry_point} = {segment}\n"
        definition: FunctionNode = node
        default_label = f"<lambda> ({Path(file).name if file else '?'}:{func.__code__.co_firstlineno})"
    else:
        try:
            text = textwrap.dedent(inspect.getsource(func))
        except (OSError, TypeError) as error:
            raise LoadError(f"cannot read the source of {description}: {error}") from None
        tree = _parse_module(text, description)
        found = next((s for s in tree.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)), None)
        if found is None:
            raise LoadError(f"cannot find the definition of {description} in its source")
        definition = found
        # decorators are dropped: they are evaluated in the enclosing scope, which the sandbox lacks
        body = "".join(text.splitlines(keepends=True)[definition.lineno - 1 :])
        entry_point = func.__name__
        default_label = func.__qualname__
    # the worker runs the source as a fresh module: the names the function reads at call time,
    # and those its defaults and annotations read when the def runs, must exist there too
    run_time = (_global_names(func.__code__) | _names_read(_default_nodes(definition))) - {entry_point}
    annotation_names = _names_read(_annotation_nodes(definition))
    needed = {name for name in run_time | annotation_names if not hasattr(builtins, name)}
    imports, bound = _imports_binding(module_source, needed)
    missing = sorted((run_time & needed) - bound)
    if missing:
        raise LoadError(
            f"{description} uses the name(s) {', '.join(missing)} from outside the function, which cannot "
            "be sent to a sandbox with its source; define the function at module level instead"
        )
    header = ""
    if needed - bound:
        # annotations naming local classes: keep them unevaluated rather than fail with NameError
        header = "from __future__ import annotations\n"
    if imports:
        header += imports + "\n\n"
    return _build_implementation(
        header + body,
        function=entry_point,
        display=description,
        hint="",
        label=label if label is not None else default_label,
        origin=f"{file}:{func.__code__.co_firstlineno}" if file else default_label,
    )


def _default_nodes(node: FunctionNode) -> list[ast.expr]:
    return [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]


def _annotation_nodes(node: FunctionNode) -> list[ast.expr]:
    arguments = node.args
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
    ]
    found = [arg.annotation for arg in every if arg is not None and arg.annotation is not None]
    returns = getattr(node, "returns", None)
    return [*found, returns] if returns is not None else found


def _names_read(nodes: Iterable[ast.expr]) -> set[str]:
    return {
        name.id
        for node in nodes
        for name in ast.walk(node)
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load)
    }


def load_callable(func: Callable[..., Any], *, label: str | None = None) -> Implementation:
    """An implementation from a live function of the caller's own process (inspected, never called).

    A module-level function is loaded from its file, to be imported by the worker under its own
    module name; a nested function or lambda travels as source.
    """
    target: object = func
    if hasattr(func, "__wrapped__"):
        try:
            target = inspect.unwrap(func)
        except ValueError:
            raise LoadError(f"{func!r}: its __wrapped__ chain is circular") from None
    if inspect.ismethod(target):
        raise LoadError(f"{func!r} is a bound method; divergent compares plain functions")
    if not inspect.isfunction(target):
        if _is_c_function(target):
            raise LoadError(f"{func!r} is a builtin or C function: divergent needs Python source to compare")
        raise LoadError(f"{func!r} is not a Python function")
    name, qualname = target.__name__, target.__qualname__
    if name == "<lambda>" or "<locals>" in qualname:
        return _load_detached(target, func, label)
    if "." in qualname:
        raise LoadError(f"{qualname} is a method; divergent compares module-level functions")
    try:
        filename = inspect.getsourcefile(target)
    except TypeError:
        filename = None
    if filename is None or not os.path.isfile(filename):
        return _load_detached(target, func, label)
    file = Path(os.path.abspath(filename))
    module_name = target.__module__
    root: Path | None = None
    if module_name == "__main__":
        # run with `python -m pkg.mod`, __main__ knows its real name; a plain script is its stem
        main_spec = target.__globals__.get("__spec__")
        spec_name = getattr(main_spec, "name", None)
        if isinstance(spec_name, str) and spec_name != "__main__":
            module_name, root = spec_name, _root_for_module(file, spec_name)
        if root is None:
            module_name, root = _module_identifier(file.stem), file.parent
    elif module_name:
        root = _root_for_module(file, module_name)
    if root is None:
        module_name, sys_path = _package_layout(file)
    else:
        sys_path = (str(root),)
    source = _read_source(file, str(file))
    return _build_implementation(
        source,
        function=name,
        display=str(file),
        hint="",
        label=label if label is not None else f"{file.name}:{name}",
        origin=f"{module_name}:{name}",
        path=str(file),
        module_name=module_name,
        sys_path=sys_path,
    )


# --------------------------------------------------------------------------------------------
# A common signature


def _normal_source(annotation_source: str) -> str:
    try:
        return ast.unparse(ast.parse(annotation_source, mode="eval"))
    except (SyntaxError, ValueError, RecursionError):
        return annotation_source.strip()


def _same_annotation(first: str, second: str) -> bool:
    if _normal_source(first) == _normal_source(second):
        return True
    left, right = analyze_annotation(first), analyze_annotation(second)
    # objects are only comparable when fully understood (two unknown classes are both Any)
    return left.complete and right.complete and left.value == right.value


def _merge_parameter(merged: Parameter, other: Parameter, names: tuple[str, str], where: str) -> Parameter:
    if other.annotation_source is None:
        return merged
    if merged.annotation_source is None:
        return replace(merged, annotation_source=other.annotation_source, annotation=other.annotation)
    if not _same_annotation(merged.annotation_source, other.annotation_source):
        raise SignatureMismatch(
            f"{names[0]} and {names[1]} annotate {where} differently: "
            f"{merged.annotation_source} vs {other.annotation_source}"
        )
    return merged


def _describe_parameter(index: int, first: Parameter, second: Parameter) -> str:
    label = first.name if first.name == second.name else f"{first.name} / {second.name}"
    return f"parameter {index + 1} ({label})"


def common_signature(impls: Sequence[Implementation]) -> Signature:
    """The signature all implementations can be called with (positionally), annotations merged.

    Positional parameters may be named differently (calls are positional) but must agree in
    number and in how many are required; keyword-only names must match. Two different
    annotations of one parameter are an error; an annotated parameter beats an unannotated one.
    """
    if not impls:
        raise InvalidArgument("no implementations to compare")
    first = impls[0]
    merged_positional = list(first.signature.positional)
    merged_keyword = {p.name: p for p in first.signature.parameters if p.kind is ParameterKind.KEYWORD_ONLY}
    variadic = {
        kind: next((p for p in first.signature.parameters if p.kind is kind), None)
        for kind in (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD)
    }
    return_annotation = first.signature.return_annotation_source
    for other in impls[1:]:
        names = (first.label, other.label)
        signature = other.signature
        positional = signature.positional
        if len(positional) != len(merged_positional):
            raise SignatureMismatch(
                f"{first.label} takes {len(merged_positional)} positional parameter(s) {first.signature} "
                f"but {other.label} takes {len(positional)} {signature}"
            )
        required_here = sum(not p.has_default for p in positional)
        required_first = sum(not p.has_default for p in merged_positional)
        if required_here != required_first:
            raise SignatureMismatch(
                f"{first.label} requires {required_first} positional argument(s) {first.signature} "
                f"but {other.label} requires {required_here} {signature}"
            )
        other_variadic = {
            kind: next((p for p in signature.parameters if p.kind is kind), None) for kind in variadic
        }
        if (variadic[ParameterKind.VAR_POSITIONAL] is None) != (
            other_variadic[ParameterKind.VAR_POSITIONAL] is None
        ):
            raise SignatureMismatch(
                f"only one of {first.label} {first.signature} and {other.label} {signature} accepts *args"
            )
        keyword_only = {p.name: p for p in signature.parameters if p.kind is ParameterKind.KEYWORD_ONLY}
        if set(keyword_only) != set(merged_keyword):
            raise SignatureMismatch(
                f"{first.label} and {other.label} have different keyword-only parameters: "
                f"{', '.join(merged_keyword) or 'none'} vs {', '.join(keyword_only) or 'none'}"
            )
        for index, parameter in enumerate(positional):
            where = _describe_parameter(index, merged_positional[index], parameter)
            merged_positional[index] = _merge_parameter(merged_positional[index], parameter, names, where)
        for name, parameter in keyword_only.items():
            merged = _merge_parameter(
                merged_keyword[name], parameter, names, f"keyword-only parameter {name}"
            )
            # required wherever one implementation requires it
            if not parameter.has_default:
                merged = replace(merged, has_default=False, default_source=None)
            merged_keyword[name] = merged
        for kind, parameter in other_variadic.items():
            current = variadic[kind]
            if current is not None and parameter is not None:
                variadic[kind] = _merge_parameter(
                    current,
                    parameter,
                    names,
                    f"parameter {'*' if kind is ParameterKind.VAR_POSITIONAL else '**'}{current.name}",
                )
            else:
                # **kwargs only when every implementation takes arbitrary keywords
                variadic[kind] = None
        if return_annotation is None:
            return_annotation = signature.return_annotation_source
    parameters = [*merged_positional]
    if variadic[ParameterKind.VAR_POSITIONAL] is not None:
        parameters.append(variadic[ParameterKind.VAR_POSITIONAL])
    parameters.extend(merged_keyword.values())
    if variadic[ParameterKind.VAR_KEYWORD] is not None:
        parameters.append(variadic[ParameterKind.VAR_KEYWORD])
    return Signature(parameters=tuple(parameters), return_annotation_source=return_annotation)


def annotation_warnings(signature: Signature) -> list[str]:
    """One warning per annotation with names the safe resolver does not know (generated as Any)."""
    warnings = []
    for parameter in signature.parameters:
        if parameter.annotation_source is None:
            continue
        unknown = analyze_annotation(parameter.annotation_source).unresolved
        if unknown:
            warnings.append(
                f"parameter {parameter.name}: {parameter.annotation_source} has unknown part(s) "
                f"{', '.join(unknown)}; inputs for it are generated as if unannotated (Any)"
            )
    return warnings


# --------------------------------------------------------------------------------------------
# Literal values (seeds are data, never code)


class _NotLiteral(ValueError):
    """An expression that is not a plain literal value."""


#: names a seed may use for special values
_LITERAL_NAMES: dict[str, Any] = {
    "math.inf": math.inf,
    "math.nan": math.nan,
    "math.pi": math.pi,
    "math.e": math.e,
    "math.tau": math.tau,
}

#: constructors that build a value from literal arguments and do nothing else
_LITERAL_CONSTRUCTORS: dict[str, Callable[..., Any]] = {
    "set": set,
    "frozenset": frozenset,
    "tuple": tuple,
    "list": list,
    "dict": dict,
    "float": float,
    "complex": complex,
    "int": int,
    "bytes": bytes,
    "bytearray": bytearray,
    "Decimal": decimal.Decimal,
    "decimal.Decimal": decimal.Decimal,
    "Fraction": fractions.Fraction,
    "fractions.Fraction": fractions.Fraction,
}

#: bytes(n) allocates n bytes: a seed has no business asking for more
_MAX_ALLOCATION = 1 << 20


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | complex) and not isinstance(value, bool)


def _hashed(container: Callable[[list[Any]], Any], items: list[Any]) -> Any:
    try:
        return container(items)
    except TypeError as error:  # e.g. {[1]}: an unhashable element
        raise _NotLiteral(str(error)) from None


def _literal(node: ast.expr, depth: int = 0) -> Any:
    if depth > 200:
        raise _NotLiteral("nested too deeply")
    inner = depth + 1
    match node:
        case ast.Constant(value=value):
            return value
        case ast.Tuple(elts=items):
            return tuple(_literal(item, inner) for item in items)
        case ast.List(elts=items):
            return [_literal(item, inner) for item in items]
        case ast.Set(elts=items):
            return _hashed(set, [_literal(item, inner) for item in items])
        case ast.Dict(keys=keys, values=values):
            if any(key is None for key in keys):
                raise _NotLiteral("** in a dict display")
            pairs = [
                (_literal(key, inner), _literal(value, inner))
                for key, value in zip(keys, values, strict=True)
            ]
            return _hashed(dict, pairs)
        case ast.UnaryOp(op=ast.USub() | ast.UAdd() as operator, operand=operand):
            number = _literal(operand, inner)
            if not _is_number(number):
                raise _NotLiteral("sign on a non-number")
            return -number if isinstance(operator, ast.USub) else +number
        case ast.BinOp(op=ast.Add() | ast.Sub() as operator, left=left, right=right):
            # only complex literals such as 1+2j, as ast.literal_eval allows
            real, imaginary = _literal(left, inner), _literal(right, inner)
            if not (
                isinstance(real, int | float)
                and not isinstance(real, bool)
                and isinstance(imaginary, complex)
            ):
                raise _NotLiteral("arithmetic")
            return real + imaginary if isinstance(operator, ast.Add) else real - imaginary
        case ast.Attribute() | ast.Name():
            name = dotted_name(node)
            if name in _LITERAL_NAMES:
                return _LITERAL_NAMES[name]
            raise _NotLiteral(f"name {name or ast.unparse(node)}")
        case ast.Call(func=callee, args=arguments, keywords=keywords):
            name = dotted_name(callee)
            constructor = _LITERAL_CONSTRUCTORS.get(name or "")
            if constructor is None:
                raise _NotLiteral(f"call to {ast.unparse(callee)}")
            if any(isinstance(a, ast.Starred) for a in arguments) or any(k.arg is None for k in keywords):
                raise _NotLiteral("* or ** in a call")
            if keywords and constructor is not dict:
                raise _NotLiteral(f"keyword arguments to {name}")
            values = [_literal(a, inner) for a in arguments]
            if (
                constructor in (bytes, bytearray)
                and values
                and isinstance(values[0], int)
                and values[0] > _MAX_ALLOCATION
            ):
                raise _NotLiteral(f"{name}({values[0]}) is too large")
            try:
                return constructor(*values, **{k.arg: _literal(k.value, inner) for k in keywords if k.arg})
            except (TypeError, ValueError, ArithmeticError) as error:
                raise _NotLiteral(f"{ast.unparse(node)}: {error}") from None
    raise _NotLiteral(type(node).__name__.lower())


def evaluate_literal(source_or_node: str | ast.expr) -> Any:
    """The value of a literal expression (like ``ast.literal_eval``, plus ``set()``, ``frozenset(...)``,
    ``float('nan')``, ``complex(...)``, ``Decimal('1.5')``, ``math.inf``). Raises ValueError otherwise.
    """
    node = source_or_node
    if isinstance(node, str):
        try:
            node = ast.parse(node.strip(), mode="eval").body
        except SyntaxError as error:
            raise ValueError(f"not valid Python: {error.msg}") from None
    try:
        return _literal(node)
    except RecursionError:
        raise ValueError("nested too deeply") from None


# --------------------------------------------------------------------------------------------
# Seeds


class Seeds(list[Input]):
    """Seed inputs, plus how many candidates were dropped (so the caller can tell the user)."""

    def __init__(self, inputs: Iterable[Input] = (), *, wrong_arity: int = 0, duplicates: int = 0) -> None:
        super().__init__(inputs)
        #: seeds that cannot be a call of the signature (too many or too few arguments, unknown keywords)
        self.wrong_arity = wrong_arity
        #: seeds equal to an earlier one
        self.duplicates = duplicates

    @property
    def dropped(self) -> int:
        return self.wrong_arity

    def describe_dropped(self) -> str | None:
        """E.g. ``"2 seeds dropped: wrong arity"``, or None when none were dropped."""
        if not self.wrong_arity:
            return None
        return f"{self.wrong_arity} seed{'s' if self.wrong_arity != 1 else ''} dropped: wrong arity"


def _value_key(value: Any) -> Any:
    """A hashable key telling values apart by type and content (1, 1.0 and True differ; nan == nan)."""
    kind = type(value).__qualname__
    if isinstance(value, list | tuple):
        return (kind, tuple(_value_key(item) for item in value))
    if isinstance(value, dict):
        return (kind, tuple((_value_key(k), _value_key(v)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return (kind, tuple(sorted((_value_key(item) for item in value), key=repr)))
    return (kind, repr(value))


def _input_key(seed: Input) -> Any:
    return (_value_key(seed.args), tuple(sorted((k, _value_key(v)) for k, v in seed.kwargs.items())))


def _fit_call(seed: Input, signature: Signature) -> Input | None:
    """The seed as a valid call of ``signature``, or None when it cannot be one."""
    parameters = signature.parameters
    positional = signature.positional
    accepts_more = any(p.kind is ParameterKind.VAR_POSITIONAL for p in parameters)
    accepts_any_keyword = any(p.kind is ParameterKind.VAR_KEYWORD for p in parameters)
    args, kwargs = list(seed.args), dict(seed.kwargs)
    if len(args) > len(positional) and not accepts_more:
        return None
    # keywords naming the next positional parameters become positional, because the
    # implementations may name their parameters differently (calls are made positionally)
    while (
        len(args) < len(positional)
        and positional[len(args)].kind is ParameterKind.POSITIONAL_OR_KEYWORD
        and positional[len(args)].name in kwargs
    ):
        args.append(kwargs.pop(positional[len(args)].name))
    filled = {p.name for p in positional[: len(args)]}
    by_keyword = {
        p.name
        for p in parameters
        if p.kind in (ParameterKind.POSITIONAL_OR_KEYWORD, ParameterKind.KEYWORD_ONLY)
    }
    for name in kwargs:
        if name in filled or (name not in by_keyword and not accepts_any_keyword):
            return None
    for index, parameter in enumerate(positional):
        if index < len(args) or parameter.has_default:
            continue
        if parameter.kind is ParameterKind.POSITIONAL_OR_KEYWORD and parameter.name in kwargs:
            continue
        return None
    for parameter in parameters:
        if (
            parameter.kind is ParameterKind.KEYWORD_ONLY
            and not parameter.has_default
            and parameter.name not in kwargs
        ):
            return None
    return Input(args=tuple(args), kwargs=kwargs, how_generated="seeds")


def fit_seeds(inputs: Iterable[Input], signature: Signature | None) -> Seeds:
    """Keep the inputs that are valid calls of ``signature`` (all when None), without duplicates."""
    kept: list[Input] = []
    seen: set[Any] = set()
    wrong_arity = duplicates = 0
    for seed in inputs:
        fitted = _fit_call(seed, signature) if signature is not None else replace(seed, how_generated="seeds")
        if fitted is None:
            wrong_arity += 1
            continue
        key = _input_key(fitted)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        kept.append(fitted)
    return Seeds(kept, wrong_arity=wrong_arity, duplicates=duplicates)


def _call_input(call: ast.Call) -> Input:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise _NotLiteral("* or ** in the call")
    return Input(
        args=tuple(_literal(a) for a in call.args),
        kwargs={k.arg: _literal(k.value) for k in call.keywords if k.arg is not None},
        how_generated="seeds",
    )


def _arguments_from_value(value: Any, signature: Signature) -> tuple[Any, ...]:
    positional = signature.positional
    takes_one = len(positional) == 1 and not any(
        p.kind is ParameterKind.VAR_POSITIONAL for p in signature.parameters
    )
    # for a one-parameter function the line is the argument itself, even when it is a tuple
    if not takes_one and isinstance(value, tuple):
        return value
    return (value,)


def _input_from_line(text: str, signature: Signature) -> Input:
    node = ast.parse(text, mode="eval").body
    # a call of any function is the call's arguments, except set(), float('nan') and friends
    if isinstance(node, ast.Call) and (callee := dotted_name(node.func)) and callee not in _LITERAL_CONSTRUCTORS:
        return _call_input(node)
    return Input(args=_arguments_from_value(_literal(node), signature), how_generated="seeds")


def seeds_from_file(path: str | os.PathLike[str], signature: Signature) -> Seeds:
    """Seeds from a file: one per line, a call ``f(1, x=2)``, the literal argument(s) ``(1, 2)``, or
    an ``assert f(...) == ...`` line (HumanEval/MBPP style: the call inside is the seed).

    Blank lines and ``#`` comments are skipped; a line that is not a literal call is an error.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidArgument(f"{file}: cannot read seeds: {error}") from None
    inputs = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("assert ") or stripped.startswith("assert("):
            inputs.extend(_inputs_from_assert_line(stripped, file, number))
            continue
        try:
            inputs.append(_input_from_line(stripped, signature))
        except SyntaxError as error:
            raise InvalidArgument(f"{file}:{number}: not a seed ({error.msg}): {stripped}") from None
        except (ValueError, RecursionError, MemoryError) as error:
            raise InvalidArgument(
                f"{file}:{number}: not a seed (only literal values are allowed, found {error}): {stripped}"
            ) from None
    return fit_seeds(inputs, signature)


#: calls that wrap the function under test in HumanEval/MBPP-style asserts, not the function itself
_ASSERT_WRAPPERS = frozenset(
    {"abs", "all", "any", "float", "int", "isclose", "len", "list", "round", "set", "sorted", "str", "tuple"}
)


def _inputs_from_assert_line(line: str, file: Path, number: int) -> list[Input]:
    """The call to the function under test in an ``assert f(...) == ...`` line (any name but the
    usual wrappers such as ``abs`` or ``math.isclose``)."""
    try:
        tree = ast.parse(line)
    except SyntaxError as error:
        raise InvalidArgument(f"{file}:{number}: not a seed ({error.msg}): {line}") from None
    names = {
        node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)
    } - _ASSERT_WRAPPERS
    found = _literal_calls(tree, names)
    if not found:
        raise InvalidArgument(f"{file}:{number}: no call with literal arguments in this assert: {line}")
    return found[:1]


def _literal_calls(tree: ast.AST, names: set[str]) -> list[Input]:
    """Inputs of the calls to any of ``names`` inside ``tree`` whose arguments are all literals."""
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id in names)
            or (isinstance(node.func, ast.Attribute) and node.func.attr in names)
        )
    ]
    calls.sort(key=lambda node: (node.lineno, node.col_offset))
    inputs = []
    for call in calls:
        try:
            inputs.append(_call_input(call))
        except (ValueError, RecursionError):
            continue  # arguments computed at run time: not a seed we can use
    return inputs


def seeds_from_docstring(impl: Implementation, *, signature: Signature | None = None) -> Seeds:
    """Seeds from the doctest examples (``>>> f(1, 2)``) in the entry point's docstring."""
    try:
        tree = ast.parse(impl.source)
    except (SyntaxError, ValueError, RecursionError):
        return Seeds()
    node = _top_level_functions(tree).get(impl.entry_point)
    if node is None or isinstance(node, ast.Lambda):
        return Seeds()
    docstring = ast.get_docstring(node)
    if not docstring:
        return Seeds()
    try:
        examples = doctest.DocTestParser().get_examples(docstring)
    except ValueError:
        return Seeds()  # malformed doctest (bad indentation): nothing to learn from
    inputs: list[Input] = []
    for example in examples:
        try:
            example_tree = ast.parse(example.source)
        except (SyntaxError, ValueError):
            continue
        inputs.extend(_literal_calls(example_tree, {impl.entry_point}))
    return fit_seeds(inputs, signature if signature is not None else impl.signature)


def _assert_trees(text: str) -> list[ast.AST]:
    source = textwrap.dedent(text)
    try:
        return [ast.parse(source)]
    except (SyntaxError, ValueError):
        pass
    # not a whole program (e.g. a list of MBPP asserts with stray lines): take the lines that parse
    trees: list[ast.AST] = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("assert"):
            try:
                trees.append(ast.parse(stripped))
            except (SyntaxError, ValueError):
                continue
    return trees


def seeds_from_asserts(text: str, entry_point: str, *, signature: Signature | None = None) -> Seeds:
    """Seeds from test asserts (HumanEval/MBPP style): every call to ``entry_point`` or ``candidate``
    with literal arguments inside an ``assert``, e.g. ``assert abs(f(1.5) - 2) < 1e-6``.
    """
    names = {entry_point, "candidate"}
    inputs: list[Input] = []
    for tree in _assert_trees(text):
        # ast.walk is breadth first: sort so seeds come out in source order
        asserts = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Assert)), key=lambda n: n.lineno)
        for node in asserts:
            inputs.extend(_literal_calls(node.test, names))
    return fit_seeds(inputs, signature)


def check_generatable(signature: Signature, seeds: Sequence[Input]) -> None:
    """Raise MissingSeeds when inputs cannot be generated: unannotated required parameters and no seeds."""
    if seeds:
        return
    unannotated = [p.name for p in signature.required if not p.annotated]
    if not unannotated:
        return
    plural = len(unannotated) > 1
    raise MissingSeeds(
        f"cannot generate inputs: parameter{'s' if plural else ''} {', '.join(unannotated)} "
        f"{'have' if plural else 'has'} no type annotation and there are no seed inputs to learn "
        "their shape from. Provide one of:\n"
        "  - type annotations, e.g. def f(items: list[int], key: str) -> ...\n"
        "  - --seeds FILE with one call per line, e.g. f([3, 1, 2], 'a')\n"
        "  - doctest examples in the docstring, e.g. >>> f([3, 1, 2], 'a')\n"
        "  - assert lines (HumanEval/MBPP style), e.g. assert f([3, 1, 2], 'a') == [1, 2, 3]"
    )
