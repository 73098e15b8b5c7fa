"""Charts for the HTML report, drawn by matplotlib as SVG text to inline in the page.

matplotlib is the ``plots`` extra (``pip install 'divergent[plots]'``; ``make test`` and ``make demo``
install it). Without it every chart function still returns its :class:`~divergent.report.blocks.Chart`
with ``svg=None``: the page then shows the chart's numbers as a table and says how to get the picture.

Every chart carries its data as a table too (under the picture, folded), so nothing is only a
picture. Labels are drawn as text, never as math (a ``$`` in a program's output stays a ``$``).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from divergent.report.blocks import Cell, Chart, Table

#: the figure width in inches; the page scales the SVG to its column
WIDTH = 7.2
_STYLE = {
    "svg.fonttype": "none",  # text stays text: small files, selectable labels
    "text.parse_math": False,
    "font.size": 9,
    "font.family": "sans-serif",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.titlesize": 10,
    "legend.fontsize": 8,
    "legend.frameon": False,
}
_LABEL_LIMIT = 28


def charts_available() -> bool:
    """Whether matplotlib can be imported (the ``plots`` extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def short_label(text: str, limit: int = _LABEL_LIMIT) -> str:
    """A label fit for an axis: long labels keep their start and end."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit // 2 - 1] + "…" + text[-(limit // 2 - 1):]


@contextmanager
def _figure(height: float, salt: str) -> Iterator[Any]:
    """A matplotlib Figure (no pyplot: nothing global, no GUI backend) under the report's style."""
    import matplotlib
    from matplotlib.figure import Figure

    # A distinct salt per chart keeps the SVG ids of several charts in one page apart.
    with matplotlib.rc_context({**_STYLE, "svg.hashsalt": salt}):
        yield Figure(figsize=(WIDTH, height), layout="constrained")


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    # inline in HTML: drop the XML declaration, the DOCTYPE and the fixed size (CSS sizes it)
    text = text[text.index("<svg"):]
    return re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 role="img"', text, count=1)


def _salt(title: str) -> str:
    return re.sub(r"\W+", "-", title.lower())[:40] or "chart"


def bar_chart(
    title: str,
    categories: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    ylabel: str,
    ylim: tuple[float, float] | None = None,
    caption: str = "",
    value_label: str = "",
) -> Chart:
    """Grouped bars: one group per category, one bar per series (None: no bar)."""
    names = list(series)
    rows: list[tuple[Cell, ...]] = [
        (category, *(series[name][index] for name in names)) for index, category in enumerate(categories)
    ]
    table = Table.of([value_label or "category", *names], rows)
    if not charts_available():
        return Chart(title=title, svg=None, table=table, caption=caption)
    height = 3.2 if len(categories) <= 12 else 4.0
    with _figure(height, _salt(title)) as figure:
        axes = figure.add_subplot()
        count = max(1, len(names))
        width = 0.8 / count
        for position, name in enumerate(names):
            xs = [index + (position - (count - 1) / 2) * width for index in range(len(categories))]
            values = [math.nan if value is None else float(value) for value in series[name]]
            axes.bar(xs, values, width=width * 0.95, label=short_label(name))
        axes.set_xticks(range(len(categories)), [short_label(c, 18) for c in categories])
        if len(categories) > 6 or any(len(str(c)) > 10 for c in categories):
            for label in axes.get_xticklabels():
                label.set_rotation(30)
                label.set_horizontalalignment("right")
        axes.set_ylabel(ylabel)
        axes.set_title(title)
        axes.grid(axis="x", visible=False)
        if ylim is not None:
            axes.set_ylim(*ylim)
        if all(isinstance(value, int) for values in series.values() for value in values if value is not None):
            axes.yaxis.get_major_locator().set_params(integer=True)
        if len(names) > 1:
            axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        svg = _svg(figure)
    return Chart(title=title, svg=svg, table=table, caption=caption)


def line_chart(
    title: str,
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    xlabel: str,
    ylabel: str,
    marks: Mapping[str, Sequence[tuple[float, float]]] | None = None,
    mark_label: str = "",
    caption: str = "",
) -> Chart:
    """Step lines of cumulative counts over time, one per series; ``marks`` draws points on them
    (e.g. where an engine found a divergent input)."""
    names = list(series)
    times = sorted({x for points in series.values() for x, _ in points})
    lookup = {name: dict(points) for name, points in series.items()}
    rows = [(x, *(lookup[name].get(x) for name in names)) for x in times]
    table = Table.of([xlabel, *names], rows)
    if not charts_available():
        return Chart(title=title, svg=None, table=table, caption=caption)
    with _figure(3.0, _salt(title)) as figure:
        axes = figure.add_subplot()
        colours = {}
        for name in names:
            points = sorted(series[name])
            if not points:
                continue
            (line,) = axes.step([x for x, _ in points], [y for _, y in points], where="post", label=short_label(name))
            colours[name] = line.get_color()
        marked = False
        for name, points in (marks or {}).items():
            if points:
                axes.scatter([x for x, _ in points], [y for _, y in points], marker="x", s=36, zorder=3,
                             color=colours.get(name, "black"), label=mark_label if not marked else None)
                marked = True
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
        axes.set_title(title)
        axes.set_xlim(left=0)
        axes.set_ylim(bottom=0)
        axes.yaxis.get_major_locator().set_params(integer=True)
        axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        svg = _svg(figure)
    return Chart(title=title, svg=svg, table=table, caption=caption)


def scatter_chart(
    title: str,
    series: Mapping[str, Sequence[tuple[float, float, str]]],
    *,
    xlabel: str,
    ylabel: str,
    lines: Sequence[tuple[str, float]] = (),
    caption: str = "",
) -> Chart:
    """Points ``(x, y, name)`` per series; ``lines`` are ``(label, slope)`` lines through the origin
    (a bound such as error ≥ incoherence / 2)."""
    rows = [(name, point_name, x, y) for name, points in series.items() for x, y, point_name in points]
    table = Table.of(["series", "point", xlabel, ylabel], rows)
    if not charts_available():
        return Chart(title=title, svg=None, table=table, caption=caption)
    with _figure(3.6, _salt(title)) as figure:
        axes = figure.add_subplot()
        for name, points in series.items():
            axes.scatter([x for x, _, _ in points], [y for _, y, _ in points], s=18, alpha=0.6,
                         label=short_label(name))
        top = max([1e-9, *(max(x, y) for points in series.values() for x, y, _ in points)])
        for label, slope in lines:
            axes.plot([0, top], [0, slope * top], linestyle="--", linewidth=1, color="grey", label=label)
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
        axes.set_title(title)
        axes.set_xlim(-0.02 * top, top * 1.05)
        axes.set_ylim(-0.02 * top, top * 1.05)
        axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        svg = _svg(figure)
    return Chart(title=title, svg=svg, table=table, caption=caption)


def heatmap_chart(
    title: str,
    rows: Sequence[str],
    columns: Sequence[str],
    values: Sequence[Sequence[float]],
    *,
    xlabel: str,
    ylabel: str,
    caption: str = "",
    integers: bool = True,
) -> Chart:
    """A matrix of numbers as coloured cells with the number written in each (a confusion matrix,
    an overlap matrix)."""
    table = Table.of([f"{ylabel} \\ {xlabel}", *columns], [(row, *values[i]) for i, row in enumerate(rows)])
    if not charts_available():
        return Chart(title=title, svg=None, table=table, caption=caption)
    size = max(len(rows), len(columns))
    with _figure(min(6.0, 1.6 + 0.45 * size), _salt(title)) as figure:
        axes = figure.add_subplot()
        axes.grid(visible=False)
        image = axes.imshow([list(map(float, row)) for row in values], cmap="Blues", aspect="auto")
        peak = max([0.0, *(float(v) for row in values for v in row)])
        for i, row in enumerate(values):
            for j, value in enumerate(row):
                text = f"{int(value):,}" if integers else f"{float(value):.2f}"
                axes.text(j, i, text, ha="center", va="center", fontsize=8,
                          color="white" if peak and float(value) > 0.6 * peak else "black")
        axes.set_xticks(range(len(columns)), [short_label(c, 16) for c in columns])
        axes.set_yticks(range(len(rows)), [short_label(r, 22) for r in rows])
        if len(columns) > 4:
            for label in axes.get_xticklabels():
                label.set_rotation(30)
                label.set_horizontalalignment("right")
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
        axes.set_title(title)
        figure.colorbar(image, ax=axes, shrink=0.8)
        svg = _svg(figure)
    return Chart(title=title, svg=svg, table=table, caption=caption)
