"""Human-readable output that a program's text cannot turn into terminal commands.

What programs print, raise or return (and what a model answers) reaches reports. In text meant
for a terminal, control characters (ESC and the rest, but tab and newline) are shown as escapes
(:func:`divergent.values.printable`), so a hostile ``__repr__`` or exception message cannot move
the cursor, rewrite earlier lines, retitle the window or hide text. JSON output keeps every value
exact. Files meant for a person (an HTML report, an emitted test) get the same treatment
(:func:`escaped_file`): a reader who ``cat``s one, or opens it in an editor, sees the escapes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderHook, RenderResult
from rich.measure import Measurement
from rich.segment import Segment

from divergent.values import printable

__all__ = ["EscapeControls", "escaped_file", "escaping", "printable"]


class EscapeControls(RenderHook):
    """A rich render hook: everything printed on the console goes through :class:`_Escaped`."""

    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [_Escaped(renderable) for renderable in renderables]


class _Escaped:
    """A renderable whose text has its control characters escaped; rich's own styling and cursor
    moves (control segments, a line's ending) pass."""

    def __init__(self, renderable: ConsoleRenderable) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.renderable, options):
            if segment.control or segment.text == "\r":
                yield segment
            else:
                yield Segment(printable(segment.text), segment.style)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)


@contextmanager
def escaping(console: Console) -> Iterator[Console]:
    """Escape control characters in what ``console`` prints within the block (for consoles that
    divergent did not make itself, e.g. one a caller passes to a renderer)."""
    hook = EscapeControls()
    console.push_render_hook(hook)
    try:
        yield console
    finally:
        console.pop_render_hook()


def escaped_file(text: str) -> str:
    """A whole file meant for a person (an HTML page, a pytest module), its control characters (ESC,
    OSC sequences, C0 and C1 controls, bidirectional overrides and isolates; not tab or newline)
    written as escapes. Safe on HTML and Python source that divergent wrote: neither needs a raw
    control character (in a Python string literal the escape means the same character)."""
    return printable(text)
