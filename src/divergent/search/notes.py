"""What a search tells as it goes: its :class:`Journal` (the phase, to a live display; the notes its
report will carry beside the verdict), and the notes made at the end (engines that failed, inputs
left unsettled)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from divergent.engines.base import Engine
from divergent.engines.registry import NEEDS_MODEL
from divergent.kinds.options import Progress
from divergent.programs import Program
from divergent.records import EngineStats, Observation, OutcomeKind
from divergent.search.escalation import Pending


class Journal:
    """The one place a search and what runs it (confirmation, shrinking, refining classes, semantic
    clustering) say what they are doing and what the report must say. Thread-safe: the re-run lane
    and the engines that drive a model work on threads of their own."""

    def __init__(self, notes: Sequence[str] = (), *, progress: Callable[[Progress], None] | None = None,
                 snapshot: Callable[[str], Progress] | None = None) -> None:
        self._notes: list[str] = list(notes)
        self._progress = progress
        self._snapshot = snapshot
        self._lock = threading.Lock()

    def note(self, text: str, *, once: bool = False) -> None:
        """One more note for the report (``once``: unless the same note is there already)."""
        with self._lock:
            if not (once and text in self._notes):
                self._notes.append(text)

    def noted(self, prefix: str) -> bool:
        """Whether a note starting with ``prefix`` was made."""
        with self._lock:
            return any(note.startswith(prefix) for note in self._notes)

    @property
    def notes(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._notes)

    def phase(self, name: str = "searching") -> None:
        """Tell the live display what the search is doing now ("searching", "shrinking", ...)."""
        if self._progress is not None and self._snapshot is not None:
            self._progress(self._snapshot(name))


def unsettled_notes(waiting: Sequence[Pending], programs: Sequence[Program], limit: float) -> tuple[str, ...]:
    """Inputs some implementation was slow on (past ``limit``) that the budget left no time to re-run."""
    if not waiting:
        return ()
    first = waiting[0].observation
    slow = ", ".join(programs[i].label for i, o in enumerate(first.outcomes) if o.kind is OutcomeKind.TIMEOUT)
    call = first.input.call(programs[0].display_name, max_length=60)
    more = f" (and {len(waiting) - 1} more input(s))" if len(waiting) > 1 else ""
    return (
        f"inconclusive: {slow} ran past {limit:g} s on {call} where others finished{more}; "
        "the budget left no time to re-run it with the escalated limit (a larger --budget may tell a hang "
        "from a slow call)",
    )


def inconclusive_note(programs: Sequence[Program], observation: Observation, limit: float, adaptive: bool) -> str:
    """The note on the first input where only timeouts set the programs apart."""
    slow = ", ".join(programs[i].label for i in observation.inconclusive)
    call = observation.input.call(programs[0].display_name, max_length=60)
    # (a limit fixed when the runner starts, a judge's, is never escalated: there only --timeouts
    # differ counts it)
    rule = "hang counts a hang" if adaptive else "differ counts such a timeout"
    return (f"inconclusive: {slow} ran past {limit:g} s on {call} where others finished (a slow implementation "
            f"is not a different one; --timeouts {rule} as a difference)")


def model_engine_notes(engines: Sequence[Engine], stats: Sequence[EngineStats]) -> tuple[str, ...]:
    """A model engine that failed (endpoint down, no code...) is told apart from the run's result."""
    notes = []
    for engine in engines:
        if engine.name not in NEEDS_MODEL:
            continue
        stopped = next((s.stopped for s in stats if s.name == engine.name), "")
        if not stopped.startswith(("failed", "unsupported")):
            # It may have failed after the run's last poll of it.
            stopped = engine.failure_note() or ""
        if stopped:
            notes.append(f"engine {engine.name} stopped — {stopped}; the other engines' results stand")
    return tuple(notes)


#: a search that found nothing is called stuck when it saw nothing new for this share of its time...
STUCK_SHARE = 0.5
#: ... and at least these many seconds
STUCK_SECONDS = 2.0


def stuck_note(stale_seconds: float, searched_seconds: float, stale_inputs: int,
               stats: Sequence[EngineStats]) -> tuple[str, ...]:
    """A note when the search revealed no new behaviour for most of its time (``stale_seconds`` of
    ``searched_seconds``, its last ``stale_inputs`` inputs): more of the same budget would likely
    not help, other starting points might."""
    if stale_seconds < max(STUCK_SECONDS, STUCK_SHARE * searched_seconds):
        return ()
    restarted = [f"{s.name} {s.restarts}x" for s in stats if s.restarts]
    restarts = f"; restarted with fresh seeds: {', '.join(restarted)}" if restarted else ""
    return (f"no input revealed a new behaviour in the search's last {stale_seconds:.1f} s ({stale_inputs:,} "
            f"inputs{restarts}): either the programs have little more to show, or the engines were stuck on "
            f"what they had seen, and seed inputs that reach other code (--seeds) may get further than a "
            f"longer budget",)
