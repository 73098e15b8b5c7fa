"""divergent: find where programs that should behave the same do not.

The public API (names are imported on first use, so ``import divergent`` stays fast and sandbox
workers, which import this package, do not pay for the whole tool)::

    divergent.check([...]) -> Report          disprove equivalence of 2..N implementations
    divergent.cluster([...]) -> Clustering    partition implementations by behaviour
    divergent.assert_equivalent(f, g, ...)    the same inside a test suite
    divergent.diff(["HEAD~1"]) -> DiffResult  every function a git change touches, before against after

Whole programs (stdin to stdout) take the same calls: ``divergent.check(["a.cpp", "b.py"],
stdin=True, examples=["sample.txt"], validator="v.py")`` (docs/programs.md).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "check": "divergent.search",
    "assert_equivalent": "divergent.search",
    "cluster": "divergent.clustering",
    "diff": "divergent.changes",
    "DiffResult": "divergent.changes",
    "Clustering": "divergent.clustering",
    "load_implementation": "divergent.load",
    "SearchOptions": "divergent.search",
    "Budget": "divergent.records",
    "Report": "divergent.records",
    "Counterexample": "divergent.records",
    "Implementation": "divergent.programs",
    "Program": "divergent.programs",
    "PythonFunction": "divergent.programs",
    "StdinProgram": "divergent.programs",
    "Input": "divergent.records",
    "TextInput": "divergent.records",
    "Outcome": "divergent.records",
    "OutcomeKind": "divergent.records",
    "Verdict": "divergent.records",
    "EqualityPolicy": "divergent.policy",
    "ExceptionEquality": "divergent.policy",
    "DEFAULT_POLICY": "divergent.policy",
    "Limits": "divergent.sandbox.limits",
    "DivergentError": "divergent.errors",
    "InvalidArgument": "divergent.errors",
    "LoadError": "divergent.errors",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'divergent' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
