"""The benchmark type (divergent.bench.benchmark): every harness is one Benchmark instance, found by
its name or by the kind of its stored runs, never by a naming convention; `divergent report RUN`
shows any benchmark's stored run through it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent.bench.benchmark import Benchmark
from divergent.cli import app
from divergent.cli.benchmarks import BENCHMARKS, benchmark_named, benchmark_of_run
from divergent.errors import InvalidArgument
from divergent.store import RUN_KINDS, Store
from report_examples import equibench_document

runner = CliRunner()


def test_every_registered_benchmark_is_an_instance_named_as_registered() -> None:
    kinds: list[str] = []
    for name in BENCHMARKS:
        benchmark = benchmark_named(name)
        assert isinstance(benchmark, Benchmark) and benchmark.name == name and benchmark.title
        assert callable(benchmark.work) and callable(benchmark.summarize) and callable(benchmark.document)
        kinds.extend(benchmark.kinds)
        for kind in benchmark.kinds:
            assert kind in RUN_KINDS and benchmark_of_run(kind) is benchmark
    assert len(kinds) == len(set(kinds))  # a stored run belongs to one benchmark
    assert {"refute", "equibench", "cetbench", "selfconsistency", "incoherence"} <= set(BENCHMARKS)


def test_a_run_of_no_benchmark_and_an_unknown_name() -> None:
    assert benchmark_of_run("check") is None and benchmark_of_run("diff") is None
    with pytest.raises(InvalidArgument, match="unknown benchmark 'nope'; known: refute"):
        benchmark_named("nope")
    generation = benchmark_named("cetbench-generate")
    with pytest.raises(InvalidArgument, match="no HTML report"):
        generation.html({})


def test_report_shows_a_benchmark_s_stored_run_as_its_own_show_does(tmp_path: Path) -> None:
    document = equibench_document(tmp_path)
    with Store(tmp_path / "store.db") as store:
        (run,) = store.list_runs("bench-equibench")
    db = str(tmp_path / "store.db")
    shown = runner.invoke(app, ["bench", "equibench", "show", run.id, "--db", db, "--json"])
    reported = runner.invoke(app, ["report", run.id[:8], "--db", db, "--json"])
    assert shown.exit_code == 0 and reported.exit_code == 0, (shown.output, reported.output)
    assert json.loads(reported.stdout)["summary"] == json.loads(shown.stdout)["summary"] == document["summary"]
    page = tmp_path / "run.html"
    written = runner.invoke(app, ["report", run.id, "--db", db, "--html", str(page)])
    assert written.exit_code == 0, written.output
    assert "EquiBench" in page.read_text()
    summary = runner.invoke(app, ["report", run.id, "--db", db])
    assert summary.exit_code == 0 and "bench-equibench run" in summary.stdout
