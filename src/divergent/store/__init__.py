"""Records of long runs in an embedded SQLite file, so that a run can stop at any moment and resume.

See :mod:`divergent.store.sqlite` for where the file lives and how concurrent writers are handled,
and :mod:`divergent.store.schema` for the records and the versioned schema.

Where a change goes: a new record or column in :mod:`~divergent.store.schema`, with a schema version
step; how the file is opened, locked and written in :mod:`~divergent.store.sqlite`.
"""

from __future__ import annotations

from divergent.store.schema import (
    RUN_KINDS,
    RUN_STATUSES,
    SCHEMA_VERSION,
    UNIT_DONE,
    UNIT_ERROR,
    RunRecord,
    StoreError,
    UnitRecord,
)
from divergent.store.sqlite import NoStore, Store, default_store_path

__all__ = [
    "RUN_KINDS",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "UNIT_DONE",
    "UNIT_ERROR",
    "NoStore",
    "RunRecord",
    "Store",
    "StoreError",
    "UnitRecord",
    "default_store_path",
]
