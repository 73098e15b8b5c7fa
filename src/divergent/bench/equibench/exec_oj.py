"""The OJ categories by execution: two Python programs reading stdin, searched from the statement's
samples (the samples parsed from the problem's HTML, then divergent's text engines mutate them).

Validity: the category's equivalence counts only inputs valid under the statement. The statement's
constraints ("1 ≤ N ≤ 10^5") give the widest range any integer of the input may take
(:func:`~divergent.bench.equibench.statement.numeric_bounds`); a validator program keeps every input
outside it from counting (divergent's ``validator``). This is a heuristic: it keeps out negative or
oversized numbers when every constraint does, not every invalid input (a count that does not match
its list, say), so a witness on a pair labelled equivalent is reported for what it is.

A pair whose statement has no sample is still searched, from a one-line input and what the engines
make of it, and the result says so.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from divergent.bench.equibench.data import Pair
from divergent.bench.equibench.exec_programs import search_difference
from divergent.bench.equibench.statement import numeric_bounds, range_validator, sample_tests
from divergent.bench.equibench.verdicts import ExecutionResult, ExecutionSettings

__all__ = ["execute_oj"]


def execute_oj(pair: Pair, settings: ExecutionSettings) -> ExecutionResult:
    samples = [sample.input for sample in sample_tests(pair.problem_html)]
    bounds = numeric_bounds(pair.problem_html)
    notes = [f"{len(samples)} sample input(s) from the statement" if samples else "no sample input in the statement"]
    with tempfile.TemporaryDirectory(prefix="divergent-oj-") as folder:
        validator = None
        if bounds is not None:
            validator = Path(folder) / "validator.py"
            validator.write_text(range_validator(bounds), encoding="utf-8")
            notes.append(f"inputs kept to integers in [{bounds[0]}, {bounds[1]}] (the statement's constraints)")
        result = search_difference((pair.program_1, pair.program_2), samples or ["1\n"], settings,
                                   validator=str(validator) if validator is not None else None)
    return replace(result, notes=(*notes, *result.notes))
