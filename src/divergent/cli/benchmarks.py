"""The registry of divergent's benchmarks (:class:`~divergent.bench.benchmark.Benchmark`): each by
its name, imported on first use, and the benchmark of a stored run. It lives at the top, beside
the commands, because it names benchmarks of several packages (``bench/``, ``incoherence/``) that
must not name each other."""

from __future__ import annotations

from typing import Any

from divergent.bench.benchmark import Benchmark, imported
from divergent.errors import InvalidArgument

__all__ = ["BENCHMARKS", "benchmark_named", "benchmark_of_run"]

#: every benchmark, by its name (its command's, and its results' ``benchmark``): "module:INSTANCE",
#: imported on first use (finding a benchmark loads no harness but its own)
BENCHMARKS: dict[str, str] = {
    "refute": "divergent.bench.refute.benchmark:REFUTE",
    "equibench": "divergent.bench.equibench.run:EQUIBENCH",
    "cetbench": "divergent.bench.cetbench.run:CETBENCH",
    "cetbench-generate": "divergent.bench.cetbench.generation:CETBENCH_GENERATION",
    "selfconsistency": "divergent.bench.selfconsistency.run:SELFCONSISTENCY",
    "incoherence": "divergent.incoherence.study:INCOHERENCE",
}


def benchmark_named(name: str) -> Benchmark[Any, Any]:
    """The benchmark registered as ``name``."""
    dotted = BENCHMARKS.get(name)
    if dotted is None:
        raise InvalidArgument(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return imported(dotted)


def benchmark_of_run(kind: str) -> Benchmark[Any, Any] | None:
    """The benchmark whose runs are stored as ``kind`` (a :class:`~divergent.store.RunRecord`'s
    kind), or None for a run of no benchmark (a check, a diff)."""
    for name in BENCHMARKS:
        benchmark = benchmark_named(name)
        if kind in benchmark.kinds:
            return benchmark
    return None
