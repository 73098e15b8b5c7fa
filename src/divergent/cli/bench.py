"""``divergent bench``: the published benchmarks' harnesses, one group each with the same shape
(``run``, ``show``, ``list``; :mod:`divergent.cli.harness`)."""

from __future__ import annotations

from divergent.cli.application import DivergentTyper, app

bench_app = DivergentTyper(
    help="Published benchmarks: run a harness, store every item, print tables like the papers'.",
    no_args_is_help=True,
)
app.add_typer(bench_app, name="bench")
