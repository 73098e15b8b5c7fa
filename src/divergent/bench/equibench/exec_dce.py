"""The DCE category by execution: both C programs built and run (they read no input), their output
and exit status compared exactly.

Weaker than the category's definition, which asks for the same program *state* at every pair of
corresponding points execution reaches: a deleted statement that executes but whose effect never
reaches the output or the exit status (a store overwritten later, a write to a variable never
printed, as in the authors' exemplars where ``x = 1`` is never observed) leaves the runs identical,
so such an inequivalent pair gets "no difference found". CSmith's programs print a checksum of
their global variables at exit, which catches most live stores to globals, but not those to locals
or later overwritten. Each program runs twice (nondeterminism shows as a difference between runs
of the same program and is reported, never claimed).
"""

from __future__ import annotations

import re
from dataclasses import replace

from divergent.bench.equibench.data import Pair
from divergent.bench.equibench.exec_programs import compare_on_inputs
from divergent.bench.equibench.verdicts import ExecutionResult, ExecutionSettings

__all__ = ["execute_dce"]


_BOOLEAN_WORDS = re.compile(r"\b(true|false|bool)\b")


def with_booleans(source: str) -> str:
    """The source with ``#include <stdbool.h>`` in front when it uses true/false/bool without it
    (the authors' exemplars do: they are C23, or C++-flavoured C)."""
    if _BOOLEAN_WORDS.search(source) and "stdbool.h" not in source:
        return "#include <stdbool.h>\n" + source
    return source


def execute_dce(pair: Pair, settings: ExecutionSettings) -> ExecutionResult:
    result = compare_on_inputs((with_booleans(pair.program_1), with_booleans(pair.program_2)), "c", ["", ""],
                               settings, what="an empty input (output and exit status)")
    return replace(result, notes=(*result.notes, "output and exit status only: weaker than DCE's state-based "
                                                 "definition"))
