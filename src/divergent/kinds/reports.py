"""A check's report written by its kind: the kind's presentation found from the kind the report
names (``Report.kind``), then the report's one frame and the JSON contract with the kind's rows.

The lookup lives here, in ``kinds``, so ``report/`` never asks which kinds exist: the renderers of
:mod:`divergent.report` take the presentation they write with; the command line, the search's
assertion messages and the diff call these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from divergent.kinds.registry import kind_named
from divergent.records import Report
from divergent.report.presentation import Presentation, ReportExtras

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["plain_report", "presentation_of", "render_report", "report_html", "report_json"]


def presentation_of(report: Report) -> Presentation:
    """The presentation of the kind of programs ``report`` compared."""
    return kind_named(report.kind).presentation


def plain_report(report: Report, extras: ReportExtras | None = None) -> str:
    """The report as plain text (AssertionErrors, ``--quiet`` failures)."""
    return presentation_of(report).plain(report, extras or ReportExtras())


def render_report(report: Report, console: Console, *, extras: ReportExtras | None = None) -> None:
    """The report on a rich terminal (control characters escaped: docs/sandbox.md); a reproducing
    test in ``extras`` follows as plain text to copy."""
    presentation_of(report).render(report, console, extras or ReportExtras())


def report_json(report: Report, function_name: str = "f", *, extras: ReportExtras | None = None) -> dict[str, Any]:
    """The report as the ``--json`` contract has it (:func:`divergent.report.json.check_json`)."""
    from divergent.report.json import check_json

    return check_json(report, presentation_of(report), function_name, extras=extras)


def report_html(report: Report, *, test: str | None = None, title: str | None = None) -> str:
    """A ``check`` report as HTML; ``test`` is the reproducing pytest module to show."""
    from divergent.report.html import check_page, render_html

    return render_html(check_page(report_json(report), test=test, title=title))
