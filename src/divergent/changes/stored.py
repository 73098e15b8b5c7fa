"""A diff kept in the store (``divergent diff --store``): one stored run per diff (the sides' commits,
the work tree's files, the options), one unit per function, saved as each is done, so the same
command after a kill runs only the functions not yet done (the harnesses' pattern:
:func:`divergent.bench.common.open_run`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from divergent.bench.common import open_run, stored_results
from divergent.changes.plan import DiffPlan
from divergent.changes.results import FunctionResult, Outcome
from divergent.store import UNIT_DONE

if TYPE_CHECKING:
    from divergent.store import RunRecord, Store

__all__ = ["DIFF_RUN_KIND", "StoredDiff", "diff_identity", "stored_document"]

#: the store's kind of a diff's runs
DIFF_RUN_KIND = "diff"
#: the unit holding the finished diff's document (a function's unit is named ``path.py:qualname``)
DOCUMENT_UNIT = "document"


def diff_identity(plan: DiffPlan, options: Mapping[str, Any]) -> dict[str, Any]:
    """What makes two diffs the same run: the repository, each side (a commit, or the work tree's
    functions as they are now), the functions compared and the options that change a result."""
    def side(name: str, commit: str | None) -> dict[str, Any]:
        if commit is not None:
            return {"name": name, "commit": commit}
        sources = sorted((f.name, f.new.source if f.new else "") for f in plan.functions)
        digest = hashlib.sha256(json.dumps(sources).encode()).hexdigest()
        return {"name": name, "work_tree": digest}

    return {
        "repository": str(plan.repository),
        "old": side(plan.old.name, plan.old.commit),
        "new": side(plan.new.name, plan.new.commit),
        "functions": [f.name for f in plan.checked],
        **dict(options),
    }


@dataclass
class StoredDiff:
    """The stored run of a diff: what an earlier invocation finished, and saving as it goes."""

    store: Store
    run: RunRecord
    #: the functions already done (by name), rebuilt against the current plan
    done: dict[str, FunctionResult]

    @classmethod
    def open(cls, store: Store, plan: DiffPlan, options: Mapping[str, Any]) -> StoredDiff:
        run, _ = open_run(store, DIFF_RUN_KIND, diff_identity(plan, options))
        saved, _errors = stored_results(store, run)
        by_name = {f.name: f for f in plan.checked}
        done = {}
        for name, stored in saved.items():
            if name in by_name:
                done[name] = FunctionResult(by_name[name], str(stored["status"]), document=stored.get("document"),
                                            test=stored.get("test"), seconds=float(stored.get("seconds", 0.0)),
                                            note=str(stored.get("note", "")))
        return cls(store, run, done)

    def save(self, result: FunctionResult) -> None:
        if result.status in (Outcome.NOT_RUN, Outcome.SKIPPED, Outcome.ADDED, Outcome.REMOVED) \
                and result.document is None and result.function.status != "check":
            return  # the plan says it again next time
        if result.status == Outcome.NOT_RUN:
            return  # its turn comes in the next invocation
        self.store.save_unit(self.run.id, result.function.name, {
            "status": result.status, "document": result.document, "test": result.test,
            "seconds": result.seconds, "note": result.note,
        }, result.seconds, state=UNIT_DONE)

    def finish(self, status: str = "finished", document: Mapping[str, Any] | None = None) -> None:
        """Mark the run; ``document``: the diff's JSON document, kept for ``divergent report RUN``."""
        if document is not None:
            self.store.save_unit(self.run.id, DOCUMENT_UNIT, dict(document), 0.0, state=UNIT_DONE)
        self.store.finish_run(self.run.id, status)


def stored_document(store: Store, run: RunRecord) -> dict[str, Any] | None:
    """The JSON document a finished diff kept (None before it finished)."""
    saved, _errors = stored_results(store, run)
    return saved.get(DOCUMENT_UNIT)
