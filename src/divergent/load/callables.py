"""Live functions of the caller's own process (inspected, never called): a module-level function is
loaded from its file; a nested function or a lambda travels to the sandbox as source, with the
import statements it needs, and is refused when it closes over values of this process.
"""

from __future__ import annotations

import ast
import builtins
import dis
import inspect
import os
import textwrap
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from divergent.errors import LoadError
from divergent.load.python_files import (
    build_implementation,
    module_identifier,
    package_layout,
    parse_module,
    read_source,
    root_for_module,
)
from divergent.load.signatures import FunctionNode
from divergent.programs import PythonFunction

__all__ = ["load_callable"]


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


def _load_detached(func: types.FunctionType, outer: object, label: str | None) -> PythonFunction:
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
        tree = parse_module(text, description)
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
    return build_implementation(
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


def load_callable(func: Callable[..., Any], *, label: str | None = None) -> PythonFunction:
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
            module_name, root = spec_name, root_for_module(file, spec_name)
        if root is None:
            module_name, root = module_identifier(file.stem), file.parent
    elif module_name:
        root = root_for_module(file, module_name)
    if root is None:
        module_name, sys_path = package_layout(file)
    else:
        sys_path = (str(root),)
    source = read_source(file, str(file))
    return build_implementation(
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
