"""The shape of the package: the public surface, and imports that point one way."""

from __future__ import annotations

import ast
from pathlib import Path

import divergent

PACKAGE = Path(divergent.__file__).resolve().parent


def imported_divergent_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("divergent"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("divergent"))
    return found


def test_public_api_is_pinned() -> None:
    assert divergent.__all__ == sorted([
        "Budget", "Clustering", "Counterexample", "DEFAULT_POLICY", "DiffResult", "DivergentError", "EqualityPolicy",
        "ExceptionEquality", "Implementation", "Input", "InvalidArgument", "Limits", "LoadError", "Outcome",
        "OutcomeKind", "Program", "PythonFunction", "Report", "SearchOptions", "StdinProgram", "TextInput", "Verdict",
        "__version__",
        "assert_equivalent", "check", "cluster", "diff", "load_implementation",
    ])
    for name in divergent.__all__:
        assert getattr(divergent, name) is not None


def test_foundation_modules_import_nothing_of_divergent_above_them() -> None:
    for name in ("errors.py", "values.py"):
        assert imported_divergent_modules(PACKAGE / name) == set(), name
    assert imported_divergent_modules(PACKAGE / "records.py") <= {"divergent.values", "divergent.errors"}


def test_store_knows_only_records() -> None:
    for path in (PACKAGE / "store").glob("*.py"):
        modules = imported_divergent_modules(path)
        assert all(m.startswith(("divergent.store", "divergent.errors", "divergent.records")) or m == "divergent"
                   for m in modules), (path.name, modules)


def test_the_sandbox_children_import_only_the_encoding() -> None:
    children = sorted((PACKAGE / "sandbox" / "child").glob("*.py"))
    assert {path.name for path in children} >= {"kit.py", "worker.py", "generator.py", "symbolic.py", "launcher.py"}
    for path in children:
        modules = imported_divergent_modules(path)
        assert all(m in ("divergent", "divergent.values") or m.startswith("divergent.sandbox.child.")
                   for m in modules), (path.name, modules)


def test_nothing_below_the_cli_imports_it() -> None:
    for path in PACKAGE.rglob("*.py"):
        if "cli" in path.relative_to(PACKAGE).parts or path.name == "__main__.py":
            continue
        assert not any(m.startswith("divergent.cli") for m in imported_divergent_modules(path)), path


# -- the layer table ---------------------------------------------------------------------------------
# Every module of src/divergent has a layer: the entry for its dotted name (relative to the package),
# or for the longest package prefix that has one. An import (at any place in the module, lazy or under
# TYPE_CHECKING) may only point to the same or a lower layer. docs/architecture.md draws this table.
LAYERS: dict[str, int] = {
    # 0: the foundation: records, errors, the encoding, and the seams' vocabulary
    "__init__": 0, "errors": 0, "values": 0, "records": 0, "programs": 0, "comparison": 0, "annotations": 0,
    "probegen.strategies": 0, "trace": 0, "paths": 0,
    # 1: rules and services that know only records
    "policy": 1, "text_comparison": 1, "preconditions": 1, "store": 1, "llm": 1, "report": 1,
    "grammars": 1, "executors": 1,
    # 2: turning specs into programs; running them in the sandbox; the structure of inputs mined from code
    "load": 2, "sandbox": 2, "structure": 2,
    # 3: the engines, the input formats of whole programs they draw from, the spurious-counterexample filter
    "engines": 3, "formats": 3, "spurious": 3,
    # 4: ProbeGen's tree search and the datasets
    "probegen": 4, "datasets": 4,
    # 5: the engines that drive a language model
    "engines.llm_probes": 5, "engines.randsearch": 5, "engines.text_llm": 5,
    # 6: the kinds of program (what differs between them, their shrinkers among it) and the options they read
    "kinds": 6, "options": 6,
    # the names of the kinds: data only, found by anyone (a report names its kind)
    "kinds.registry": 0,
    # 7: the search loop
    "search": 7,
    # 8: what is built on the search
    "clustering": 8, "incoherence": 8, "bench": 8, "changes": 8,
    # 9: the command line
    "cli": 9, "__main__": 9,
}
MAX_MODULE_LINES = 600


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts)


def layer_of(name: str) -> int:
    parts = name.split(".")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise AssertionError(f"divergent.{name} has no layer in LAYERS: add it")


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def resolved_imports(path: Path) -> set[str]:
    """The divergent modules a module imports, as names relative to the package: ``from a import b``
    counts ``a.b`` when ``b`` is a module, else ``a``."""
    known = modules()

    def resolve(dotted: str) -> str:
        name = dotted.removeprefix("divergent").lstrip(".") or "__init__"
        return f"{name}.__init__" if f"{name}.__init__" in known else name

    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(resolve(a.name) for a in node.names if a.name.startswith("divergent"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("divergent"):
            for alias in node.names:
                submodule = resolve(f"{node.module}.{alias.name}")
                found.add(submodule if submodule in known else resolve(node.module))
    return found


def test_every_import_points_to_the_same_or_a_lower_layer() -> None:
    upward = []
    for name, path in modules().items():
        for target in resolved_imports(path):
            if target in ("__init__",):
                continue  # `import divergent` for its version or lazy names
            if layer_of(target) > layer_of(name):
                upward.append(f"{name} (layer {layer_of(name)}) imports {target} (layer {layer_of(target)})")
    assert not upward, "\n".join(sorted(upward))


def test_the_import_graph_has_no_circle() -> None:
    graph = {name: {t for t in resolved_imports(path) if t != "__init__"} for name, path in modules().items()}
    visiting: list[str] = []
    done: set[str] = set()

    def visit(name: str) -> None:
        if name in done:
            return
        if name in visiting:
            raise AssertionError("import circle: " + " -> ".join([*visiting[visiting.index(name):], name]))
        visiting.append(name)
        for target in sorted(graph.get(name, ())):
            visit(target)
        visiting.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)


def test_no_module_imports_another_modules_private_names() -> None:
    offenders = []
    for path in [*PACKAGE.rglob("*.py"), *(PACKAGE.parents[1] / "tests").glob("*.py")]:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("divergent"):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                hidden_module = any(part.startswith("_") and not part.startswith("__")
                                    for part in node.module.split("."))
                if private or hidden_module:
                    offenders.append(f"{path.name}: from {node.module} import {', '.join(a.name for a in node.names)}")
    assert not offenders, "\n".join(offenders)


def test_no_module_is_a_god_module() -> None:
    long = {name: len(path.read_text().splitlines()) for name, path in modules().items()}
    assert not {n: count for n, count in long.items() if count > MAX_MODULE_LINES}, long


# -- one pipeline for every kind of program -------------------------------------------------------
# What differs between kinds of program (Python functions, whole programs reading stdin, ...) lives in
# the kind's object (divergent.kinds); everything else holds a kind and never asks which it is.
#: the records, inputs, comparisons and services of particular kinds (and every class a kind's module
#: defines: :func:`kind_classes`)
KIND_CLASSES = frozenset({
    "PythonFunction", "Implementation", "StdinProgram", "Input", "TextInput", "EqualityPolicy", "OutputComparison",
    "TextServices",
})
#: modules that serve one kind of program (or the kinds whose input is a text) and nothing else: the
#: kinds themselves, the loader of whole programs, and the engines only a kind's table names. A
#: branch on the kind there is no branch: the module is the kind's own.
ONE_KIND_MODULES = (
    "kinds",  # every kind's module
    "load.whole_programs",  # whole programs' specs
    "engines.proofs",  # the symbolic engine's proofs (Python functions)
    "engines.text_seeds", "engines.text_mutation", "engines.text_grammar", "engines.text_generator",
    "engines.text_llm",  # texts
)


def kind_classes() -> frozenset[str]:
    defined = {node.name for path in (PACKAGE / "kinds").glob("*.py") for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.ClassDef)}
    return KIND_CLASSES | defined - {"ProgramKind", "Subjects"}


def _names(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Tuple):
        return set().union(*(_names(element) for element in node.elts))
    if isinstance(node, ast.BinOp):
        return _names(node.left) | _names(node.right)
    return set()


def kind_branches(path: Path, classes: frozenset[str]) -> list[str]:
    """Where a module asks which kind of program it holds: ``isinstance`` (or ``type(...) is``)
    against a kind's classes, or ``services is None`` (the services of text kinds, or none: the way
    the search once told whole programs from functions, ``programs is None``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass") \
                and len(node.args) == 2 and _names(node.args[1]) & classes:
            found.append(f"line {node.lineno}: {node.func.id}(..., {', '.join(sorted(_names(node.args[1]) & classes))})")
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = node.left, node.comparators[0]
            if isinstance(node.ops[0], ast.Is | ast.IsNot) and isinstance(right, ast.Constant) and right.value is None \
                    and _names(left) & {"programs", "services"} and isinstance(left, ast.Name | ast.Attribute):
                found.append(f"line {node.lineno}: {' '.join(sorted(_names(left)))} is None")
            if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "type" \
                    and _names(right) & classes:
                found.append(f"line {node.lineno}: type(...) is {', '.join(sorted(_names(right) & classes))}")
    return found


def test_nothing_outside_the_kinds_asks_which_kind_of_program_it_holds() -> None:
    classes = kind_classes()
    offenders = []
    for name, path in modules().items():
        if any(name == owner or name.startswith(owner + ".") for owner in ONE_KIND_MODULES):
            continue
        offenders += [f"divergent.{name}: {branch}" for branch in kind_branches(path, classes)]
    assert not offenders, "ask the kind instead (divergent.kinds.base.ProgramKind):\n" + "\n".join(offenders)


def test_the_rule_sees_a_branch_on_the_kind(tmp_path: Path) -> None:
    module = tmp_path / "branchy.py"
    module.write_text("def f(item, context):\n    if isinstance(item, TextInput):\n        return 1\n"
                      "    if context.services is None:\n        return 2\n    if self.programs is not None:\n"
                      "        return 3\n    return type(item) is Input\n")
    assert [branch.split(":")[1].strip() for branch in kind_branches(module, kind_classes())] == [
        "isinstance(..., TextInput)", "services is None", "programs is None", "type(...) is Input"]


def test_no_command_function_takes_more_than_eight_parameters() -> None:
    """A command takes its flags as records (option groups, divergent.cli.option_groups), not one
    parameter per flag: no function of the command line that is a command (decorated with
    ``.command``/``.callback``, or handed to ``.command(...)`` or ``with_option_groups``) takes more
    than eight parameters. The rule checks itself on a probe first."""

    def commands(source: str) -> dict[str, int]:
        tree = ast.parse(source)
        handed = {arg.id for node in ast.walk(tree) if isinstance(node, ast.Call)
                  and any(word in ast.unparse(node.func) for word in (".command", "with_option_groups"))
                  for arg in node.args if isinstance(arg, ast.Name)}
        found = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (node.name in handed or any(
                    word in ast.unparse(d) for d in node.decorator_list for word in (".command", ".callback"))):
                args = node.args
                found[node.name] = len([a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
                                        if a.arg not in ("self", "cls")])
        return found

    probe = ("@app.command('x')\ndef wide(a, b, c, d, e, f, g, h, i): ...\n"
             "def nested(a, b, c, d, e, f, g, h, i): ...\ngroup.command('y')(with_option_groups(nested))\n"
             "@app.command('z')\n@with_option_groups\ndef narrow(path, flags): ...\n"
             "def helper(a, b, c, d, e, f, g, h, i): ...\n")
    assert commands(probe) == {"wide": 9, "nested": 9, "narrow": 2}
    wide = {f"cli/{path.name}:{name}": count for path in sorted((PACKAGE / "cli").glob("*.py"))
            for name, count in commands(path.read_text()).items() if count > 8}
    assert not wide, f"commands with more than 8 parameters (take an option group instead): {wide}"
