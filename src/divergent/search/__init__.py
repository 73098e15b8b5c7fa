"""The loop every command shares: engines propose, the sandbox runs, the policy compares.

Rooms: :mod:`~divergent.kinds.options` (the one options record), :mod:`~divergent.search.prepare`
(choose the kind of program, load once, set up, start), :mod:`~divergent.search.loop` (the engine room:
:class:`Search`), :mod:`~divergent.search.partition` (behaviour classes),
:mod:`~divergent.search.splitting` (refining classes on confirmed differences, the filter's say),
:mod:`~divergent.kinds.call_shrink` (smaller counterexamples), :mod:`~divergent.search.check`
(``check`` and ``assert_equivalent``).
"""

from divergent.kinds.options import DEFAULT_OPTIONS, ImplementationSpec, Progress, SearchOptions, SeedSpec
from divergent.search.check import assert_equivalent, check, outcomes_on, run_check
from divergent.search.loop import Search
from divergent.search.partition import Partition, refine
from divergent.search.prepare import load_programs, prepare
from divergent.search.splitting import refine_partition

__all__ = [
    "DEFAULT_OPTIONS",
    "ImplementationSpec",
    "Partition",
    "Progress",
    "Search",
    "SearchOptions",
    "SeedSpec",
    "assert_equivalent",
    "check",
    "load_programs",
    "outcomes_on",
    "prepare",
    "refine",
    "refine_partition",
    "run_check",
]
