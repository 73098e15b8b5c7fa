"""What a change did to behaviour: every function a diff between two revisions touches (its code
changed, or something it reaches in the repository did), old paired with new, each checked by a
search of its own on one warm pool under a shared budget.

The rooms: :mod:`~divergent.changes.trees` (the sides: revisions or the work tree, their files),
:mod:`~divergent.changes.symbols` (a module's definitions and what each reads), :mod:`~divergent.changes.reach`
(what changed, and the functions that reach it), :mod:`~divergent.changes.calling` (how a function or
method is called; signatures brought to the common parameters), :mod:`~divergent.changes.plan`
(pairing, what is checked and what is skipped, with reasons), :mod:`~divergent.changes.running`
(the searches, on threads or a Ray cluster), :mod:`~divergent.changes.results` (what came of each).

``divergent diff`` (:mod:`divergent.cli.diff`) is a thin layer over::

    plan = plan_diff(["HEAD~1"])            # what is checked, what is skipped and why
    result = run_diff(plan, DiffSettings(budget_per_function=5.0))
    result.exit_code                       # 1 changed, 4 some not judged, 0 none changed
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "DiffPlan": "plan",
    "PlannedFunction": "plan",
    "Status": "plan",
    "plan_diff": "plan",
    "plan_sides": "plan",
    "Factory": "calling",
    "parse_factories": "calling",
    "Side": "trees",
    "sides_of": "trees",
    "DiffSettings": "running",
    "run_diff": "running",
    "DiffResult": "results",
    "FunctionResult": "results",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'divergent.changes' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"divergent.changes.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
