"""The units a test's run stored (read straight from the store's database)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def stored_units(database: Path) -> list[tuple[str, str]]:
    try:
        with sqlite3.connect(database, timeout=5) as connection:
            return list(connection.execute("select unit_key, state from run_units"))
    except sqlite3.Error:
        return []
