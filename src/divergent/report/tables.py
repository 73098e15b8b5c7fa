"""Tables in a terminal that never cut a name or a number.

A rich table squeezed into a narrow terminal wraps and truncates its cells (``mod…``, ``10…``).
:func:`fitted` wraps a table so that it is printed as it is when it fits without wrapping a name or
a number (columns of prose may wrap), and otherwise as one block per row: the row's first cells as
a heading, then one ``column  value`` line per other column. Every value is shown whole either way;
only the layout changes.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

__all__ = ["FittedTable", "fitted"]


class FittedTable:
    """A table, or one block per row when the table is wider than the console (see the module)."""

    def __init__(self, table: Table, *, heading_columns: int = 1, prose: tuple[str, ...] = ()) -> None:
        for column in table.columns:
            # a wrapped number is as unreadable as a cut one: blocks instead; prose may wrap
            column.no_wrap = str(column.header) not in prose
        self.table = table
        self.heading_columns = max(1, heading_columns)

    def least_width(self, console: Console, options: ConsoleOptions) -> int:
        """The width the table needs for every cell but prose to be shown on one line."""
        table = self.table
        wide = options.update(width=10_000)
        widths = []
        for column in table.columns:
            cells = [column.header, *column.cells] if table.show_header else list(column.cells)
            measured = [Measurement.get(console, wide, cell) for cell in cells]
            prose = not column.no_wrap
            widths.append(max((m.minimum if prose else m.maximum) for m in measured) if measured else 0)
        _, right, _, left = table.padding
        padding = (left + right) * len(widths) - (0 if table.pad_edge else left + right)
        chrome = ((2 if table.show_edge else 0) + max(0, len(widths) - 1)) if table.box else 0
        return sum(widths) + padding + chrome

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.least_width(console, options) <= options.max_width:
            yield self.table
            return
        yield from self.blocks()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)

    def blocks(self) -> list[RenderableType]:
        table = self.table
        columns = table.columns
        cells = [list(column.cells) for column in columns]
        shown: list[RenderableType] = []
        if table.title:
            shown.append(Text.from_markup(table.title, style="bold") if isinstance(table.title, str) else table.title)
        for row in range(table.row_count):
            heading = Text(" · ").join(
                _text(cells[index][row]) for index in range(min(self.heading_columns, len(columns)))
            )
            heading.stylize("bold")
            grid = Table.grid(padding=(0, 2))
            grid.add_column(style="dim", no_wrap=True)
            grid.add_column(overflow="fold")
            for index in range(self.heading_columns, len(columns)):
                value = cells[index][row]
                if _text(value).plain.strip() == "":
                    continue
                grid.add_row(_text(columns[index].header), value)
            shown.append(Group(heading, Padding(grid, (0, 0, 0, 2), expand=False)))
        if table.caption:
            shown.append(Text.from_markup(table.caption, style="dim") if isinstance(table.caption, str)
                         else table.caption)
        return shown


def _text(renderable: RenderableType) -> Text:
    if isinstance(renderable, Text):
        return renderable
    if isinstance(renderable, str):
        return Text.from_markup(renderable)
    return Text(str(renderable))


def fitted(table: Table, *, heading_columns: int = 1, prose: tuple[str, ...] = ()) -> FittedTable:
    """``table`` as :class:`FittedTable`: whole at its width, or one block per row (``prose``: the
    headers of columns of sentences, which may wrap in the table)."""
    return FittedTable(table, heading_columns=heading_columns, prose=prose)
