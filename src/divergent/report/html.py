"""Self-contained HTML reports: one file, inline CSS and inline SVG charts, no script, nothing fetched
(the page's Content-Security-Policy forbids any fetch), readable offline on a laptop.

Pages are made of the records in :mod:`divergent.report.blocks`, filled in by one function per kind
and rendered by Jinja2 templates shipped in ``divergent/report/templates``:

=============  ====================================================  ===========================
kind           page from                                             function
=============  ====================================================  ===========================
check          ``check --json``'s document (or a ``Report``)          :func:`check_page`
cluster        ``cluster --json``'s document                          :func:`cluster_page`
incoherence    ``incoherence --json``'s document                      :func:`incoherence_page`
probegen       a stored ProbeGen run's parameters and units           :func:`probegen_page`
bench          the harness's own sections (:mod:`~divergent.report.evaluation`)  :func:`bench_page`
=============  ====================================================  ===========================

then :func:`render_html` (text) or :func:`write_html` (a file). Charts need matplotlib (the
``plots`` extra); without it each chart shows as its table of numbers, with a note. A ``Report``
record becomes a page through its kind (:func:`divergent.kinds.reports.report_html`).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import Any

from divergent.errors import InvalidArgument
from divergent.report.blocks import Page, cell_text
from divergent.report.pages import check_page, cluster_page
from divergent.report.studies import bench_page, incoherence_page, probegen_page
from divergent.report.terminal import escaped_file

__all__ = [
    "bench_page",
    "check_page",
    "cluster_page",
    "incoherence_page",
    "probegen_page",
    "render_html",
    "write_html",
]

MISSING_CHARTS = "Charts are shown as tables: matplotlib is not installed (pip install 'divergent[plots]')."


@functools.cache
def _environment() -> Any:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("divergent.report", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "j2"), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["cell"] = cell_text
    return environment


def render_html(page: Page) -> str:
    """The page as one self-contained HTML document."""
    from divergent import __version__

    if any(chart.svg is None for chart in page.charts()) and MISSING_CHARTS not in page.footnotes:
        page = replace(page, footnotes=(*page.footnotes, MISSING_CHARTS))
    # a program's output, a file name or a label may hold ESC, OSC 8/52 or a bidi override
    return escaped_file(_environment().get_template("page.html.j2").render(page=page, version=__version__))


def write_html(page: Page, path: str | Path) -> Path:
    """Write the page to ``path`` (its directory must exist); InvalidArgument when it cannot be written."""
    target = Path(path)
    text = render_html(page)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InvalidArgument(f"--html {target}: cannot write it ({error.strerror or error})") from None
    return target


