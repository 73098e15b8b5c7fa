"""The units a test's run stored (read straight from the store's database), and a run interrupted
once it has stored its first."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path


def stored_units(database: Path) -> list[tuple[str, str]]:
    try:
        with sqlite3.connect(database, timeout=5) as connection:
            return list(connection.execute("select unit_key, state from run_units"))
    except sqlite3.Error:
        return []


def interrupt_after_first_unit(command: Sequence[str], env: Mapping[str, str], database: Path) -> tuple[int, str]:
    """Start ``command``, press Ctrl-C once it has stored a unit (or after 90 s); its exit code and stderr."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and len(stored_units(database)) < 1 and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    return process.returncode, stderr
