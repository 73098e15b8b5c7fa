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
        "Budget", "Clustering", "Counterexample", "DEFAULT_POLICY", "DivergentError", "EqualityPolicy",
        "ExceptionEquality", "Implementation", "Input", "InvalidArgument", "Limits", "LoadError", "Outcome",
        "OutcomeKind", "Program", "PythonFunction", "Report", "SearchOptions", "StdinProgram", "TextInput", "Verdict",
        "__version__",
        "assert_equivalent", "check", "cluster", "load_implementation",
    ])
    for name in divergent.__all__:
        assert getattr(divergent, name) is not None


def test_foundation_modules_import_nothing_of_divergent_above_them() -> None:
    for name in ("errors.py", "values.py"):
        assert imported_divergent_modules(PACKAGE / name) == set(), name
    assert imported_divergent_modules(PACKAGE / "model.py") <= {"divergent.values", "divergent.errors"}


def test_store_knows_only_records() -> None:
    for path in (PACKAGE / "store").glob("*.py"):
        modules = imported_divergent_modules(path)
        assert all(m.startswith(("divergent.store", "divergent.errors", "divergent.model")) or m == "divergent"
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
    "__init__": 0, "errors": 0, "values": 0, "model": 0, "programs": 0, "comparison": 0, "annotations": 0,
    "probegen.strategies": 0,
    # 1: rules and services that know only records
    "policy": 1, "text_comparison": 1, "preconditions": 1, "store": 1, "llm": 1, "report": 1,
    "executors": 1,
    # 2: turning specs into programs; running them in the sandbox
    "load": 2, "sandbox": 2,
    # 3: the engines and the spurious-counterexample filter
    "engines": 3, "spurious": 3,
    # 4: ProbeGen's tree search and the datasets
    "probegen": 4, "datasets": 4,
    # 5: the engines that drive a language model
    "engines.llm_probes": 5, "engines.randsearch": 5, "engines.text_llm": 5,
    # 6: the search loop
    "search": 6,
    # 7: what is built on the search
    "clustering": 7, "incoherence": 7, "bench": 7,
    # 8: the command line
    "cli": 8, "__main__": 8,
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
