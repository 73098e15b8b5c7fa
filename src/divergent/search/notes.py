"""What a search's report says beside its verdict: engines that failed, inputs left unsettled,
whole programs' helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from divergent.engines.base import Engine, WholePrograms
from divergent.engines.registry import NEEDS_MODEL
from divergent.model import EngineStats, OutcomeKind
from divergent.programs import Program
from divergent.search.escalation import Pending


def program_notes(programs: WholePrograms | None, runner: Any) -> tuple[str, ...]:
    """What whole programs' helpers have to say (the validator's rejections, a failing checker)."""
    if programs is None:
        return ()
    return (*programs.notes(), *getattr(runner, "notes", ()))


def unsettled_notes(waiting: Sequence[Pending], implementations: Sequence[Program], limit: float) -> tuple[str, ...]:
    """Inputs some implementation was slow on (past ``limit``) that the budget left no time to re-run."""
    if not waiting:
        return ()
    first = waiting[0].observation
    slow = ", ".join(implementations[i].label for i, o in enumerate(first.outcomes) if o.kind is OutcomeKind.TIMEOUT)
    call = first.input.call(implementations[0].display_name, max_length=60)
    more = f" (and {len(waiting) - 1} more input(s))" if len(waiting) > 1 else ""
    return (
        f"inconclusive: {slow} ran past {limit:g} s on {call} where others finished{more}; "
        "the budget left no time to re-run it with the escalated limit (a larger --budget may tell a hang "
        "from a slow call)",
    )


def model_engine_notes(engines: Sequence[Engine], stats: Sequence[EngineStats]) -> tuple[str, ...]:
    """A model engine that failed (endpoint down, no code...) is told apart from the run's result."""
    notes = []
    for engine in engines:
        if engine.name not in NEEDS_MODEL:
            continue
        stopped = next((s.stopped for s in stats if s.name == engine.name), "")
        if not stopped.startswith(("failed", "unsupported")):
            # It may have failed after the run's last poll of it.
            stopped = getattr(engine, "failure_note", lambda: None)() or ""
        if stopped:
            notes.append(f"engine {engine.name} stopped — {stopped}; the other engines' results stand")
    return tuple(notes)
