"""REFUTE as a :class:`~divergent.bench.benchmark.Benchmark`: its options
(:class:`~divergent.bench.refute.run.RefuteConfig`), its dataset and solver (:func:`~divergent.bench.refute.run.run_refute`:
the rows' attempts, one stored run per strategy) and its scorer (:mod:`divergent.bench.refute.report`). Apart from
both, since the report reads the runs' keys (:func:`~divergent.bench.refute.run.unit_key`)."""

from __future__ import annotations

from typing import Any

from divergent.bench.benchmark import Benchmark
from divergent.bench.refute.report import stored_document
from divergent.bench.refute.run import KIND, RefuteConfig, run_refute
from divergent.store import RunRecord, Store

__all__ = ["REFUTE", "run_document"]


def run_document(store: Store, run: RunRecord) -> dict[str, Any]:
    """The results document of one stored strategy run (:func:`~divergent.bench.refute.report.stored_document`)."""
    return stored_document(store, [run])


REFUTE: Benchmark[RefuteConfig, dict[str, Any]] = Benchmark(
    name="refute", title="REFUTE", kinds=(KIND,), options=RefuteConfig, work=run_refute, summarize=run_document,
    document=dict, page="divergent.bench.refute.html:refute_page",
)
