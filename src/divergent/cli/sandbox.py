"""``divergent sandbox``: which isolation levels this machine offers, and what each guarantees."""

from __future__ import annotations

from rich.table import Table

from divergent.cli.app import app, make_console


@app.command()
def sandbox() -> None:
    """Show the isolation levels available here (the strongest is used by default)."""
    from divergent.sandbox.isolation import GUARANTEES, Isolation, available_levels

    levels = available_levels()
    table = Table(title="sandbox isolation levels (docs/sandbox.md)")
    for column in ("level", "available", "guarantees"):
        table.add_column(column)
    for level in Isolation:
        mark = "default" if level is levels[0] else ("yes" if level in levels else "no")
        table.add_row(level.value, mark, GUARANTEES[level])
    make_console().print(table)
