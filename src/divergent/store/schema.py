"""The store's records and its versioned SQL schema.

The schema version lives in the ``meta`` table (``key = 'schema_version'``). ``MIGRATIONS[i]`` is
the SQL script that takes a store from version ``i`` to ``i + 1``; :data:`SCHEMA_VERSION` is the
newest version this divergent knows. A migration only ever adds: a store written by an older
divergent is upgraded in place when opened, and one written by a newer divergent is refused (it
may hold tables or states this one would misread).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from divergent.errors import DivergentError, InvalidArgument

__all__ = [
    "MIGRATIONS",
    "RUN_KINDS",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "UNIT_DONE",
    "UNIT_ERROR",
    "RunRecord",
    "StoreError",
    "UnitRecord",
    "canonical_json",
]


class StoreError(DivergentError):
    """The store cannot be used: not a divergent store, written by a newer version, or busy."""


#: run statuses: a run is "running" until finished, stopped by the user ("interrupted"), or
#: ended by an error ("failed"); a run found "running" after a crash can be resumed like the others
RUN_STATUSES: Final = ("running", "finished", "interrupted", "failed")
#: the kinds of run divergent stores (``report --kind``): stored check and cluster reports, studies,
#: ProbeGen trees, the benchmarks' runs, recorded samples
RUN_KINDS: Final = ("check", "cluster", "incoherence", "probegen", "refute", "bench-equibench", "bench-cetbench",
                    "bench-cetbench-generate", "bench-selfconsistency", "candidates")
#: unit states: the unit's result is valid, or the unit ended in an error recorded in its result
UNIT_DONE: Final = "done"
UNIT_ERROR: Final = "error"

MIGRATIONS: Final[tuple[str, ...]] = (
    # 0 -> 1: runs and their units
    """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        -- canonical JSON (sorted keys, no spaces): equal parameters are equal text
        parameters TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted', 'failed')),
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        divergent_version TEXT NOT NULL
    );
    CREATE INDEX runs_by_parameters ON runs (kind, parameters);
    CREATE TABLE run_units (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        unit_key TEXT NOT NULL,
        state TEXT NOT NULL,
        result TEXT NOT NULL,
        seconds REAL NOT NULL,
        finished TEXT NOT NULL,
        -- the version that computed this unit (a resumed run may span versions)
        divergent_version TEXT NOT NULL,
        UNIQUE (run_id, unit_key)
    );
    """,
    # 1 -> 2: the language-model response cache (a rerun costs nothing and answers the same)
    """
    CREATE TABLE llm_responses (
        -- sha256 of the canonical request (model, messages, parameters, sample index); never the key
        request_key TEXT PRIMARY KEY,
        model TEXT NOT NULL,
        request TEXT NOT NULL,
        response TEXT NOT NULL,
        created TEXT NOT NULL
    );
    """,
)

SCHEMA_VERSION: Final = len(MIGRATIONS)


def canonical_json(value: Mapping[str, Any], *, what: str = "parameters") -> str:
    """The one text of a JSON object: sorted keys, no spaces, no NaN (so equal means equal text)."""
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"{what} must be a mapping, got {type(value).__name__}")
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InvalidArgument(f"{what} are not plain JSON: {error}") from None


@dataclass(frozen=True)
class RunRecord:
    """One run (e.g. one ``divergent incoherence`` invocation and its resumptions)."""

    id: str
    kind: str
    parameters: dict[str, Any]
    status: str
    #: ISO 8601 UTC timestamps
    created: str
    updated: str
    #: the divergent version that created the run
    divergent_version: str
    #: how many units are saved
    unit_count: int = 0

    @property
    def short_id(self) -> str:
        """A prefix that :meth:`Store.get_run` accepts (unique in all but huge stores)."""
        return self.id[:8]


@dataclass(frozen=True)
class UnitRecord:
    """The saved result of one unit of work (e.g. ``gpt_4o@0.6/HumanEval/12``)."""

    run_id: str
    key: str
    state: str
    result: dict[str, Any]
    seconds: float
    #: ISO 8601 UTC timestamp of when it was saved
    finished: str
    #: the divergent version that computed it
    divergent_version: str
