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
        "OutcomeKind", "Program", "PythonFunction", "Report", "SearchOptions", "Verdict", "__version__",
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
    assert {path.name for path in children} >= {"kit.py", "worker.py", "generator.py", "symbolic.py"}
    for path in children:
        modules = imported_divergent_modules(path)
        assert all(m in ("divergent", "divergent.values") or m.startswith("divergent.sandbox.child.")
                   for m in modules), (path.name, modules)


def test_nothing_below_the_cli_imports_it() -> None:
    for path in PACKAGE.rglob("*.py"):
        if "cli" in path.relative_to(PACKAGE).parts or path.name == "__main__.py":
            continue
        assert not any(m.startswith("divergent.cli") for m in imported_divergent_modules(path)), path
