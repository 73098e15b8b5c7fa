"""What came of each function of a diff, and of the diff: statuses, the exit code, the JSON
document (one record per function, with the fields of ``check --json``) and the counterexample
as one line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from divergent.changes.plan import DiffPlan, PlannedFunction, Status

__all__ = ["DIFF_FORMAT", "DiffResult", "FunctionResult", "Outcome"]

#: the version of the ``diff --json`` document
DIFF_FORMAT = 1


class Outcome:
    """A function's status once the diff ran."""

    #: a confirmed difference: behaviour changed
    CHANGED = "changed"
    #: no difference found within its budget (``check``'s no-difference-found)
    SAME = "same"
    #: proven equivalent by the symbolic engine
    PROVEN = "proven-same"
    #: equivalent on every valid input of a small space, each run and judged
    ALL_INPUTS = "same-on-all-inputs"
    #: the search judged too few inputs to tell
    TOO_FEW_INPUTS = "too-few-inputs"
    #: the search could not run (the code does not load, an internal error)
    ERROR = "error"
    #: the plan or the search could not check it (signature, instance, no way to make inputs)
    SKIPPED = Status.SKIPPED
    #: the diff's budget ran out before its turn
    NOT_RUN = "not-run"
    ADDED = Status.ADDED
    REMOVED = Status.REMOVED

    #: what could not be judged (exit 4 when nothing changed)
    UNJUDGED = frozenset({TOO_FEW_INPUTS, ERROR, SKIPPED, NOT_RUN})


_FROM_VERDICT = {
    "divergent": Outcome.CHANGED,
    "no-difference-found": Outcome.SAME,
    "proven-equivalent": Outcome.PROVEN,
    "equivalent-on-all-inputs": Outcome.ALL_INPUTS,
    "too-few-inputs": Outcome.TOO_FEW_INPUTS,
    "error": Outcome.ERROR,
}


@dataclass(frozen=True)
class FunctionResult:
    """One function's result: its status, the search's report as ``check --json`` writes it
    (None when no search ran), its reproducing test (a changed function), seconds."""

    function: PlannedFunction
    status: str
    document: Mapping[str, Any] | None = None
    test: str | None = None
    seconds: float = 0.0
    #: why it was not judged, when the search said (no way to make inputs, a load error)
    note: str = ""

    @classmethod
    def from_search(cls, function: PlannedFunction, found: Mapping[str, Any], seconds: float) -> FunctionResult:
        """From the solver's plain-JSON result (:class:`divergent.changes.running.FunctionCheck`)."""
        document = found.get("document")
        if document is None:
            status = Outcome.SKIPPED if found.get("skipped") else Outcome.ERROR
            return cls(function, status, seconds=seconds, note=str(found.get("note") or "no report"))
        status = _FROM_VERDICT.get(str(document.get("verdict")), Outcome.ERROR)
        note = str(document.get("error") or "") if status == Outcome.ERROR else ""
        return cls(function, status, document=document, test=found.get("test"), seconds=seconds, note=note)

    @property
    def reason(self) -> str:
        """What the table says beside the verdict when there is no counterexample."""
        return self.note or self.function.reason

    def counterexample(self) -> str:
        """``f(x) → a ≠ b`` for a changed function, else empty."""
        cx = (self.document or {}).get("counterexample")
        if not cx:
            return ""
        values = [str(outcome.get("value", "")) for outcome in cx.get("outcomes", ())]
        return f"{cx.get('call', '')} → {' ≠ '.join(values)}"

    def record(self) -> dict[str, Any]:
        """The JSON record: the function, why it is in the diff and the diff's ``note`` (how it was
        compared, or why it was not), then ``check --json``'s fields (whose ``reason`` is the verdict's,
        where a search ran)."""
        function = self.function
        record: dict[str, Any] = {
            "function": function.name, "module": function.module, "qualname": function.qualname,
            "file": function.path, "line": function.line, "status": self.status, "why": function.why,
            "note": self.reason, "reason": self.reason, "seconds": round(self.seconds, 3),
            "old": function.old.label if function.old else None, "new": function.new.label if function.new else None,
        }
        record.update(self.document or {"verdict": None, "counterexample": None})
        record["seconds"] = round(self.seconds, 3)
        return record


@dataclass(frozen=True)
class DiffResult:
    """A diff's plan and each function's result, in the plan's order."""

    plan: DiffPlan
    results: tuple[FunctionResult, ...]
    seconds: float = 0.0
    #: the stored run's id (``--store``)
    run: str | None = None

    def count(self, *statuses: str) -> int:
        return sum(result.status in statuses for result in self.results)

    @property
    def changed(self) -> tuple[FunctionResult, ...]:
        return tuple(r for r in self.results if r.status == Outcome.CHANGED)

    @property
    def exit_code(self) -> int:
        """1 when a function changed behaviour, 4 when some could not be judged and none changed, 0."""
        if self.changed:
            return 1
        return 4 if any(r.status in Outcome.UNJUDGED for r in self.results) else 0

    def summary(self) -> str:
        parts = [f"{self.count(Outcome.CHANGED)} changed", f"{self.count(Outcome.SAME, Outcome.PROVEN, Outcome.ALL_INPUTS)} same"]
        for status in (Outcome.TOO_FEW_INPUTS, Outcome.ERROR, Outcome.SKIPPED, Outcome.NOT_RUN, Outcome.ADDED,
                       Outcome.REMOVED):
            if self.count(status):
                parts.append(f"{self.count(status)} {status}")
        plan = self.plan
        tail = f"; {plan.unchanged} function(s) untouched"
        if plan.tests:
            tail += f", {plan.tests} test function(s) not compared"
        return ", ".join(parts) + tail

    def document(self) -> dict[str, Any]:
        plan = self.plan
        return {
            "format": DIFF_FORMAT,
            "old": {"name": plan.old.name, "commit": plan.old.commit},
            "new": {"name": plan.new.name, "commit": plan.new.commit},
            "exit_code": self.exit_code,
            "summary": {
                "checked": self.count(Outcome.CHANGED, Outcome.SAME, Outcome.PROVEN, Outcome.ALL_INPUTS,
                                      Outcome.TOO_FEW_INPUTS, Outcome.ERROR),
                **{status: self.count(status) for status in (
                    Outcome.CHANGED, Outcome.SAME, Outcome.PROVEN, Outcome.ALL_INPUTS, Outcome.TOO_FEW_INPUTS,
                    Outcome.ERROR, Outcome.SKIPPED, Outcome.NOT_RUN, Outcome.ADDED, Outcome.REMOVED)},
                "untouched": plan.unchanged, "tests_not_compared": plan.tests,
                "symbols_changed": plan.symbols_changed,
            },
            "notes": list(plan.notes),
            "seconds": round(self.seconds, 3),
            "run": self.run,
            "functions": [result.record() for result in self.results],
        }
