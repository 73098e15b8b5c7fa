"""The execution judge's records: its three verdicts, its settings, and one pair's result (see
:mod:`divergent.bench.equibench.execution`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["ExecutionResult", "ExecutionSettings", "ExecutionVerdict", "not_executable"]


class ExecutionVerdict(StrEnum):
    INEQUIVALENT = "inequivalent"
    NO_DIFFERENCE = "no-difference-found"
    NOT_EXECUTABLE = "not-executable"


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
        """YES (True) for no difference found, NO (False) for a witness, None when not executable."""
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
