"""The OJ categories by execution: two Python programs reading stdin, searched from the statement's
samples (the samples parsed from the problem's HTML, then divergent's text engines mutate them).

Validity: the category's equivalence counts only inputs valid under the statement. The statement's
constraints ("1 ≤ N ≤ 10^5") give the widest range any integer of the input may take
(:func:`~divergent.bench.equibench.statement.numeric_bounds`); a validator program keeps every input
outside it from counting (divergent's ``validator``). This is a heuristic: it keeps out negative or
oversized numbers when every constraint does, not every invalid input (a count that does not match
its list, say), so a witness on a pair labelled equivalent is reported for what it is.

The input format (:mod:`divergent.formats`) is inferred from the samples, the statement (its input
section and constraints) and how the two programs read their input; the engines mutate and draw
inputs within it. A pair whose statement has no sample is searched from the format alone (inputs
drawn from it), or from a one-line input when no format could be inferred; the result says which.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from divergent.bench.equibench.data import Pair
from divergent.bench.equibench.exec_programs import search_difference
from divergent.bench.equibench.statement import numeric_bounds, range_validator, sample_tests
from divergent.bench.equibench.verdicts import ExecutionResult, ExecutionSettings
from divergent.formats.infer import infer_format

__all__ = ["execute_oj"]


def execute_oj(pair: Pair, settings: ExecutionSettings) -> ExecutionResult:
    samples = [sample.input for sample in sample_tests(pair.problem_html)]
    bounds = numeric_bounds(pair.problem_html)
    notes = [f"{len(samples)} sample input(s) from the statement" if samples else "no sample input in the statement"]
    fmt = infer_format(samples, statement=pair.problem_html,
                       programs=[(pair.program_1, "python"), (pair.program_2, "python")])
    if fmt is not None:
        notes.append(f"input format from the {fmt.origin.replace('+', ', the ')}: "
                     + " | ".join(fmt.text().rstrip().splitlines()))
    with tempfile.TemporaryDirectory(prefix="divergent-oj-") as folder:
        validator = None
        if bounds is not None:
            validator = Path(folder) / "validator.py"
            validator.write_text(range_validator(bounds), encoding="utf-8")
            notes.append(f"inputs kept to integers in [{bounds[0]}, {bounds[1]}] (the statement's constraints)")
        seeds = samples or ([] if fmt is not None else ["1\n"])
        result = search_difference((pair.program_1, pair.program_2), seeds, settings,
                                   validator=str(validator) if validator is not None else None, input_format=fmt)
    return replace(result, notes=(*notes, *result.notes))
