"""The execution judge's records: its three verdicts, its settings, and one pair's result (see
:mod:`divergent.bench.equibench.execution`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["ExecutionResult", "ExecutionSettings", "ExecutionVerdict", "from_report", "not_executable"]


class ExecutionVerdict(StrEnum):
    INEQUIVALENT = "inequivalent"
    NO_DIFFERENCE = "no-difference-found"
    NOT_EXECUTABLE = "not-executable"
    #: ran, but judged too few inputs for "no difference" (``divergent.search.verdict``): no prediction
    TOO_FEW_INPUTS = "too-few-inputs"


@dataclass(frozen=True)
class ExecutionSettings:
    """How hard the execution judge tries on one pair."""

    #: wall seconds of search per pair (building excluded)
    budget: float = 10.0
    #: the run's random seed (inputs, register values)
    seed: int = 0
    #: seconds one run of one program may take
    timeout: float = 2.0
    #: the sandbox level; None: the strongest available
    isolation: str | None = None
    #: x86-64: how many register/memory inputs to try
    x86_inputs: int = 256

    def as_dict(self) -> dict[str, Any]:
        return {"budget": self.budget, "seed": self.seed, "timeout": self.timeout, "x86_inputs": self.x86_inputs}


@dataclass(frozen=True)
class ExecutionResult:
    verdict: ExecutionVerdict
    #: why (not executable), or how (no difference: what was tried)
    reason: str = ""
    #: inequivalent: {"input": text, "outputs": [program 1's, program 2's], ...}
    witness: dict[str, Any] | None = None
    #: inputs run on both programs
    inputs: int = 0
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default=())

    @property
    def prediction(self) -> bool | None:
        """YES (True) for no difference found, NO (False) for a witness, None when not executable or
        judged on too few inputs."""
        if self.verdict is ExecutionVerdict.INEQUIVALENT:
            return False
        if self.verdict is ExecutionVerdict.NO_DIFFERENCE:
            return True
        return None

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict.value,
            "reason": self.reason,
            "witness": self.witness,
            "inputs": self.inputs,
            "seconds": round(self.seconds, 3),
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExecutionResult:
        return cls(
            verdict=ExecutionVerdict(data["verdict"]),
            reason=str(data.get("reason", "")),
            witness=data.get("witness"),
            inputs=int(data.get("inputs", 0)),
            seconds=float(data.get("seconds", 0.0)),
            notes=tuple(data.get("notes", ())),
        )


def not_executable(reason: str) -> ExecutionResult:
    return ExecutionResult(ExecutionVerdict.NOT_EXECUTABLE, reason=reason)


def from_report(report: Any, seconds: float, witness: dict[str, Any] | None = None) -> ExecutionResult:
    """The execution judge's answer from a ``divergent.check`` report, by the verdict's one rule: a
    witness (``witness``, when the report has a counterexample), no difference found (enough inputs,
    a proof or the whole input space), or too few inputs to tell (no prediction)."""
    if report.divergent and witness is not None:
        return ExecutionResult(ExecutionVerdict.INEQUIVALENT, reason=f"found by {report.counterexample.engine}",
                               witness=witness, inputs=report.inputs, seconds=seconds)
    verdict = ExecutionVerdict.TOO_FEW_INPUTS if report.too_few_inputs else ExecutionVerdict.NO_DIFFERENCE
    return ExecutionResult(verdict, reason=f"{report.inputs} input(s), {report.exit_reason.value}: {report.reason}",
                           inputs=report.inputs, seconds=seconds, notes=tuple(report.notes[:5]))
