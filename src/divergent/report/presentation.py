"""How one kind of program's inputs and outcomes are written: the :class:`Presentation` seam.

A report's frame (verdict, engines, notes, timeline) is the same for every kind; what differs is how
an input and an outcome read: a call ``f(1, [2])`` and what it returned or raised, or a program's
stdin and what it printed and how it ended. Every kind of program has one presentation
(``ProgramKind.presentation``), which fills the one frame (:mod:`divergent.report.frame`) with its
rows; a report names its kind (``Report.kind``), and :mod:`divergent.kinds.reports` finds the
presentation from it (``report/`` never looks kinds up).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from divergent.records import Counterexample, Outcome, Report

if TYPE_CHECKING:
    from rich.console import Console


@dataclass(frozen=True)
class ReportExtras:
    """What a report shows besides its records, computed by the caller (the command line): a file
    holding the counterexample's input, the commands that reproduce each run on it, the reproducing
    pytest module."""

    input_file: str | None = None
    reproduce: tuple[str, ...] = ()
    #: the reproducing test, printed after the report ("" or None: not printed)
    test: str | None = None


class Presentation(Protocol):
    """How reports write one kind's inputs and outcomes (JSON, plain text, the rich terminal)."""

    def outcome_json(self, label: str, outcome: Outcome, *, first_difference: int | None = None) -> dict[str, Any]:
        """One program's outcome as the ``--json`` contract has it."""
        ...

    def counterexample_json(self, cx: Counterexample, labels: Sequence[str], extras: ReportExtras) -> dict[str, Any]:
        """The counterexample (its input, each program's outcome with its class) for ``--json``."""
        ...

    def title(self, report: Report) -> str:
        """The report's title (the HTML page's heading): what was compared, in this kind's words."""
        ...

    def plain(self, report: Report, extras: ReportExtras) -> str:
        """The whole report as plain text (AssertionErrors, ``--quiet``)."""
        ...

    def render(self, report: Report, console: Console, extras: ReportExtras) -> None:
        """The whole report on a rich terminal."""
        ...
