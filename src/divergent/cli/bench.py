"""``divergent bench``: the published benchmarks' harnesses (one subcommand each)."""

from __future__ import annotations

import typer

from divergent.cli.app import app

bench_app = typer.Typer(
    help="Published benchmarks: run a harness, store every item, print tables like the papers'.",
    no_args_is_help=True,
)
app.add_typer(bench_app, name="bench")
