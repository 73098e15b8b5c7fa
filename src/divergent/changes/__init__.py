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

    result = divergent.diff(["HEAD~1"])     # plan and run in one call, or in two steps:
    plan = plan_diff(["HEAD~1"])            # what is checked, what is skipped and why
    result = run_diff(plan, DiffSettings(budget_per_function=5.0))
    result.exit_code                       # 1 changed, 4 some not judged, 0 none changed
"""

from __future__ import annotations

from divergent.changes.calling import Factory, parse_factories
from divergent.changes.plan import DiffPlan, PlannedFunction, Status, plan_diff, plan_sides
from divergent.changes.results import DiffResult, FunctionResult
from divergent.changes.running import DiffSettings, diff, run_diff
from divergent.changes.trees import Side, sides_of

__all__ = [
    "DiffPlan",
    "DiffResult",
    "DiffSettings",
    "Factory",
    "FunctionResult",
    "PlannedFunction",
    "Side",
    "Status",
    "diff",
    "parse_factories",
    "plan_diff",
    "plan_sides",
    "run_diff",
    "sides_of",
]
