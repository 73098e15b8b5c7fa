"""The building blocks of an HTML report: plain records a page is made of, rendered by the
templates in ``report/templates`` (:mod:`divergent.report.html`).

A page (:class:`Page`) is a banner (:class:`Banner`: the verdict) and sections; a section holds
blocks: :class:`Table`, :class:`Chart` (an SVG picture and the same numbers as a table),
:class:`Facts`, :class:`Code`, :class:`Paragraph`, :class:`Steps`, :class:`SideBySide` (each
implementation's outcome, with the differences highlighted).

Nothing here draws or renders: :mod:`divergent.report.charts` makes charts, and the evaluation
blocks every benchmark report shares (accuracy per category, a bias table, a confusion matrix, a
strategy overlap) are built in :mod:`divergent.report.evaluation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from divergent.report.diff import Span

#: how a banner or a paragraph is coloured
Tone = Literal["bad", "good", "warn", "neutral"]
#: a table cell: text, a number (floats are shown with 3 decimals), or None (shown as "–")
Cell = str | int | float | None


@dataclass(frozen=True)
class Table:
    """Rows under column headings; ``numeric`` columns (by index) are right-aligned."""

    block: ClassVar[str] = "table"
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    caption: str = ""
    numeric: tuple[int, ...] = ()

    @classmethod
    def of(cls, columns: Sequence[str], rows: Sequence[Sequence[Cell]], caption: str = "") -> Table:
        """A table whose columns holding only numbers (and blanks) are right-aligned."""
        rows_ = tuple(tuple(row) for row in rows)
        numeric = tuple(
            index for index in range(len(columns))
            if any(row[index] is not None for row in rows_)
            and all(row[index] is None or (isinstance(row[index], int | float) and not isinstance(row[index], bool))
                    for row in rows_)
        )
        return cls(columns=tuple(columns), rows=rows_, caption=caption, numeric=numeric)


@dataclass(frozen=True)
class Chart:
    """A picture (inline SVG text; None without matplotlib) and the numbers it draws, as a table."""

    block: ClassVar[str] = "chart"
    title: str
    svg: str | None
    table: Table
    caption: str = ""


@dataclass(frozen=True)
class Banner:
    """The verdict at the top of a page."""

    block: ClassVar[str] = "banner"
    headline: str
    detail: str = ""
    tone: Tone = "neutral"


@dataclass(frozen=True)
class Facts:
    """Name: value pairs (the run's settings, its size)."""

    block: ClassVar[str] = "facts"
    items: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Code:
    """Text shown as is (a call, a generated test); ``caption`` says what it is."""

    block: ClassVar[str] = "code"
    text: str
    caption: str = ""
    language: str = ""


@dataclass(frozen=True)
class Paragraph:
    block: ClassVar[str] = "paragraph"
    text: str
    tone: Tone = "neutral"


@dataclass(frozen=True)
class Steps:
    """An ordered list (the shrinking steps), optionally with a note per step."""

    block: ClassVar[str] = "steps"
    items: tuple[str, ...]
    caption: str = ""


@dataclass(frozen=True)
class OutcomeCard:
    """One implementation's outcome on the counterexample; ``value`` and ``stdout`` are spans
    against the reference (the first implementation), so a template can mark what differs."""

    label: str
    class_number: int
    kind: str
    value: tuple[Span, ...]
    stdout: tuple[Span, ...] = ()
    notes: tuple[str, ...] = ()
    reference: bool = False


@dataclass(frozen=True)
class SideBySide:
    """Each implementation's outcome on one input, side by side."""

    block: ClassVar[str] = "side-by-side"
    call: str
    cards: tuple[OutcomeCard, ...]
    caption: str = ""


Block = Table | Chart | Banner | Facts | Code | Paragraph | Steps | SideBySide


@dataclass(frozen=True)
class Section:
    title: str
    blocks: tuple[Block, ...]
    #: the HTML id (an anchor, and what tests look for)
    id: str = ""
    intro: str = ""


@dataclass(frozen=True)
class Page:
    """One report: what kind it is ("check", "cluster", "incoherence", "probegen", "bench"), a title,
    the verdict banner and the sections."""

    kind: str
    title: str
    banner: Banner
    sections: tuple[Section, ...]
    subtitle: str = ""
    #: notes shown at the end (e.g. "charts need divergent[plots]")
    footnotes: tuple[str, ...] = field(default_factory=tuple)

    def charts(self) -> list[Chart]:
        return [block for section in self.sections for block in section.blocks if isinstance(block, Chart)]


def cell_text(value: Any) -> str:
    """How a cell is shown: floats with 3 decimals (NaN and None as "–"), the rest as text."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "–" if value != value else f"{value:.3f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
