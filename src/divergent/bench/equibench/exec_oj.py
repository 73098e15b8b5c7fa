"""The OJ categories by execution: two Python programs reading stdin, searched from the statement's
samples (the samples parsed from the problem's HTML, then divergent's text engines mutate them).

A pair whose statement has no sample is still searched, from an empty input and what the engines
make of it, and the result says so.
"""

from __future__ import annotations

from dataclasses import replace

from divergent.bench.equibench.data import Pair
from divergent.bench.equibench.exec_programs import search_difference
from divergent.bench.equibench.execution import ExecutionResult, ExecutionSettings
from divergent.bench.equibench.statement import sample_tests

__all__ = ["execute_oj"]


def execute_oj(pair: Pair, settings: ExecutionSettings) -> ExecutionResult:
    samples = [sample.input for sample in sample_tests(pair.problem_html)]
    result = search_difference((pair.program_1, pair.program_2), samples or ["\n"], settings)
    note = f"{len(samples)} sample input(s) from the statement" if samples else "no sample input in the statement"
    return replace(result, notes=(note, *result.notes))
