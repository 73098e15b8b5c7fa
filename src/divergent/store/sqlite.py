"""An embedded SQLite store of runs and their finished units, so that long runs can resume.

A run is split into units (one per model configuration and task, say); each finished unit is
saved in its own transaction, so a run killed at any moment (even by SIGKILL) leaves every unit
either complete or absent, never half written or twice. Resuming = :meth:`Store.find_run` with
the same parameters, then skipping :meth:`Store.done_keys`.

Where: ``$DIVERGENT_HOME/divergent.sqlite3``, else ``$XDG_DATA_HOME/divergent/divergent.sqlite3``,
else ``~/.local/share/divergent/divergent.sqlite3`` (see :func:`default_store_path`); any path can
be passed instead.

Concurrency: the database is in WAL mode, so readers never block the writer nor each other.
Writes take SQLite's write lock up front (``BEGIN IMMEDIATE``) and wait up to ``timeout``
seconds (30 by default) for another writer to finish: one writer at a time, across threads and
processes. A :class:`Store` object belongs to the thread that opened it; other threads and
processes open their own :class:`Store` on the same path.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from divergent import __version__, paths
from divergent.errors import InvalidArgument
from divergent.store.schema import (
    MIGRATIONS,
    RUN_STATUSES,
    SCHEMA_VERSION,
    UNIT_DONE,
    UNIT_ERROR,
    RunRecord,
    StoreError,
    UnitRecord,
    canonical_json,
)

__all__ = ["DEFAULT_TIMEOUT", "STORE_FILE_NAME", "NoStore", "Store", "default_store_path"]

STORE_FILE_NAME = "divergent.sqlite3"
#: seconds a write waits for another writer before giving up
DEFAULT_TIMEOUT = 30.0

_RUN_COLUMNS = (
    "id, kind, parameters, status, created, updated, divergent_version, "
    "(SELECT COUNT(*) FROM run_units u WHERE u.run_id = runs.id) AS unit_count"
)


class NoStore(InvalidArgument):
    """A store read (not written) at a path where there is none."""


def default_store_path() -> Path:
    """``$DIVERGENT_HOME/divergent.sqlite3``, else under ``$XDG_DATA_HOME`` or ``~/.local/share``."""
    return paths.data_dir() / STORE_FILE_NAME


def _make_private(path: Path) -> None:
    """Create the database file readable by its user only (SQLite gives its -wal and -shm files
    the database's permissions); an existing one of ours loses what others could read."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return  # sqlite3 says what is wrong, in its words
    try:
        info = os.fstat(fd)
        if info.st_uid == os.geteuid() and info.st_mode & 0o077:
            os.fchmod(fd, info.st_mode & 0o700)
    except OSError:
        pass
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        with contextlib.suppress(OSError):
            if companion.stat().st_uid == os.geteuid():
                companion.chmod(0o600)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _statements(script: str) -> Iterator[str]:
    """The statements of an SQL script, one by one.

    ``executescript`` would commit the open transaction first; running the statements one by one
    keeps a migration and its version bump in one transaction.
    """
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                yield pending.strip()
            pending = ""
    leftover = [line for line in pending.splitlines() if line.strip() and not line.strip().startswith("--")]
    if leftover:
        raise StoreError(f"incomplete SQL statement in a migration: {leftover[0].strip()[:80]}")


class Store:
    """Runs and their units in one SQLite file (created, or upgraded, on open)."""

    def __init__(self, path: Path | str | None = None, *, timeout: float = DEFAULT_TIMEOUT, create: bool = True) -> None:
        """Open (``create``: or create) the store at ``path`` (default: :func:`default_store_path`).
        With ``create=False`` a missing file is :class:`NoStore` and nothing is written: a reader
        given a mistyped path must not leave a new empty store there."""
        self.path = Path(path).expanduser() if path is not None else default_store_path()
        self.timeout = timeout
        if not create and not self.path.is_file():
            raise NoStore(f"no store at {self.path}" + (" (a directory)" if self.path.is_dir() else ""))
        try:
            # the store holds programs' outputs and models' answers: private to its user
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"{self.path.parent}: cannot create the store's directory: {error}") from None
        _make_private(self.path)
        try:
            # isolation_level=None: no implicit transactions; every write says BEGIN IMMEDIATE itself
            self._connection = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: cannot open the store: {error}") from None
        try:
            self._configure()
            self._migrate()
        except BaseException:
            self._connection.close()
            raise

    # ---------------------------------------------------------------------------------------
    # Opening

    def _configure(self) -> None:
        # Switching a new file to WAL needs a moment alone with it: several threads or processes
        # opening one fresh store at once get "database is locked" at once, whatever the busy
        # timeout, so wait for the switch here (up to the store's timeout).
        give_up = time.monotonic() + self.timeout
        while True:
            try:
                self._connection.execute("PRAGMA journal_mode=WAL").fetchone()
                break
            except sqlite3.DatabaseError as error:
                if "locked" not in str(error) or time.monotonic() > give_up:
                    raise StoreError(f"{self.path}: not a divergent store: {error}") from None
                time.sleep(0.02)
        try:
            # in WAL mode NORMAL is still atomic and consistent after a crash; only the last
            # transactions may be lost on power failure, which a resume recomputes
            self._connection.execute("PRAGMA synchronous=NORMAL")
            self._connection.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: not a divergent store: {error}") from None

    def _migrate(self) -> None:
        with self._write() as connection:
            connection.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            version = self._schema_version()
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} has schema version {version}, written by a newer divergent; this one "
                    f"(version {__version__}) knows up to version {SCHEMA_VERSION}: upgrade divergent, "
                    "or use another store path"
                )
            if version == 0:
                foreign = [
                    name
                    for (name,) in connection.execute(
                        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                    )
                    if name != "meta"
                ]
                if foreign:
                    raise StoreError(
                        f"{self.path} is an SQLite database but not a divergent store "
                        f"(it has tables {', '.join(sorted(foreign)[:5])})"
                    )
                connection.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('created', ?), ('created_by', ?)",
                    (_now(), __version__),
                )
            for step in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[step]):
                    connection.execute(statement)
            if version != SCHEMA_VERSION:
                connection.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )

    def _schema_version(self) -> int:
        row = self._connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            return 0
        try:
            return int(row[0])
        except ValueError:
            raise StoreError(f"{self.path}: unreadable schema version {row[0]!r}") from None

    @property
    def schema_version(self) -> int:
        return self._schema_version()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, holding the write lock from the start (no upgrade deadlocks)."""
        connection = self._connection
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            raise StoreError(
                f"{self.path}: cannot write ({error}); another process may have held it for {self.timeout:g} s"
            ) from None
        try:
            yield connection
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # ---------------------------------------------------------------------------------------
    # Runs

    @staticmethod
    def _run(row: tuple[Any, ...]) -> RunRecord:
        run_id, kind, parameters, status, created, updated, version, unit_count = row
        return RunRecord(
            id=run_id,
            kind=kind,
            parameters=json.loads(parameters),
            status=status,
            created=created,
            updated=updated,
            divergent_version=version,
            unit_count=unit_count,
        )

    def _fetch_run(self, run_id: str) -> RunRecord | None:
        row = self._connection.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
        return self._run(row) if row is not None else None

    def create_run(self, kind: str, parameters: Mapping[str, Any]) -> RunRecord:
        """A new run in status "running"; ``parameters`` must be plain JSON (they identify the run)."""
        if not kind:
            raise InvalidArgument("a run needs a kind, e.g. 'incoherence'")
        text = canonical_json(parameters)
        run_id = uuid.uuid4().hex
        now = _now()
        with self._write() as connection:
            connection.execute(
                "INSERT INTO runs (id, kind, parameters, status, created, updated, divergent_version) "
                "VALUES (?, ?, ?, 'running', ?, ?, ?)",
                (run_id, kind, text, now, now, __version__),
            )
        record = self._fetch_run(run_id)
        assert record is not None
        return record

    def find_run(
        self, kind: str, parameters: Mapping[str, Any], *, status: str | None = None
    ) -> RunRecord | None:
        """The latest run of ``kind`` with exactly these parameters (key order does not matter),
        optionally only in ``status``; None when there is none."""
        query = f"SELECT {_RUN_COLUMNS} FROM runs WHERE kind = ? AND parameters = ?"
        values: list[Any] = [kind, canonical_json(parameters)]
        if status is not None:
            self._check_status(status)
            query += " AND status = ?"
            values.append(status)
        row = self._connection.execute(
            query + " ORDER BY created DESC, rowid DESC LIMIT 1", values
        ).fetchone()
        return self._run(row) if row is not None else None

    def get_run(self, id_or_prefix: str) -> RunRecord:
        """The run with this id, or the only one whose id starts with it; InvalidArgument otherwise."""
        text = id_or_prefix.strip().lower()
        if not text:
            raise InvalidArgument("empty run id")
        exact = self._fetch_run(text)
        if exact is not None:
            return exact
        rows = self._connection.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE substr(id, 1, ?) = ? ORDER BY created DESC LIMIT 6",
            (len(text), text),
        ).fetchall()
        if not rows:
            raise InvalidArgument(f"no run {id_or_prefix!r} in {self.path}")
        if len(rows) > 1:
            shown = ", ".join(row[0][:12] for row in rows[:5])
            raise InvalidArgument(
                f"run id {id_or_prefix!r} is ambiguous: {shown}{', ...' if len(rows) > 5 else ''}"
            )
        return self._run(rows[0])

    def list_runs(self, kind: str | None = None) -> list[RunRecord]:
        """All runs (of ``kind``), newest first."""
        query = f"SELECT {_RUN_COLUMNS} FROM runs"
        values: tuple[Any, ...] = ()
        if kind is not None:
            query += " WHERE kind = ?"
            values = (kind,)
        rows = self._connection.execute(query + " ORDER BY created DESC, rowid DESC", values).fetchall()
        return [self._run(row) for row in rows]

    @staticmethod
    def _check_status(status: str) -> None:
        if status not in RUN_STATUSES:
            raise InvalidArgument(f"unknown run status {status!r}: expected one of {', '.join(RUN_STATUSES)}")

    def _set_status(self, run_id: str, status: str) -> RunRecord:
        self._check_status(status)
        return self._update_run(run_id, "status", status)

    def _update_run(self, run_id: str, column: str, value: str) -> RunRecord:
        """Set one column of a run (``status`` or ``parameters``, named by this class only)."""
        with self._write() as connection:
            changed = connection.execute(
                f"UPDATE runs SET {column} = ?, updated = ? WHERE id = ?", (value, _now(), run_id)
            ).rowcount
        if not changed:
            raise InvalidArgument(f"no run {run_id!r} in {self.path}")
        record = self._fetch_run(run_id)
        assert record is not None
        return record

    def finish_run(self, run_id: str, status: str = "finished") -> RunRecord:
        """Mark the run "finished", "interrupted" or "failed"."""
        return self._set_status(run_id, status)

    def resume_run(self, run_id: str) -> RunRecord:
        """Mark the run "running" again (its saved units stay)."""
        return self._set_status(run_id, "running")

    def set_parameters(self, run_id: str, parameters: Mapping[str, Any]) -> RunRecord:
        """Replace a run's parameters (a resumed report run: what it found is part of them)."""
        return self._update_run(run_id, "parameters", canonical_json(parameters))

    # ---------------------------------------------------------------------------------------
    # Units

    def save_unit(
        self,
        run_id: str,
        key: str,
        result: Mapping[str, Any],
        seconds: float,
        *,
        state: str = UNIT_DONE,
    ) -> None:
        """Save a finished unit, replacing any earlier save of the same key (one transaction)."""
        if state not in (UNIT_DONE, UNIT_ERROR):
            raise InvalidArgument(f"unknown unit state {state!r}: expected {UNIT_DONE!r} or {UNIT_ERROR!r}")
        if not isinstance(result, Mapping):
            raise InvalidArgument(f"a unit's result must be a mapping, got {type(result).__name__}")
        try:
            # results may hold NaN (an undefined rate): Python's json reads it back
            text = json.dumps(result, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError) as error:
            raise InvalidArgument(f"unit {key!r}: result is not plain JSON: {error}") from None
        now = _now()
        try:
            with self._write() as connection:
                connection.execute(
                    "INSERT OR REPLACE INTO run_units "
                    "(run_id, unit_key, state, result, seconds, finished, divergent_version) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (run_id, key, state, text, float(seconds), now, __version__),
                )
                connection.execute("UPDATE runs SET updated = ? WHERE id = ?", (now, run_id))
        except sqlite3.IntegrityError:
            raise InvalidArgument(f"no run {run_id!r} in {self.path}") from None

    def unit_done(self, run_id: str, key: str) -> bool:
        """Whether the unit was saved (in any state: a recorded error is a finished unit too)."""
        row = self._connection.execute(
            "SELECT 1 FROM run_units WHERE run_id = ? AND unit_key = ?", (run_id, key)
        ).fetchone()
        return row is not None

    def done_keys(self, run_id: str) -> set[str]:
        """The keys of the saved units, to skip when resuming."""
        rows = self._connection.execute("SELECT unit_key FROM run_units WHERE run_id = ?", (run_id,))
        return {key for (key,) in rows}

    def units(self, run_id: str) -> list[UnitRecord]:
        """The saved units, in the order they were (last) saved."""
        rows = self._connection.execute(
            "SELECT run_id, unit_key, state, result, seconds, finished, divergent_version "
            "FROM run_units WHERE run_id = ? ORDER BY rowid",
            (run_id,),
        )
        return [
            UnitRecord(
                run_id=row[0],
                key=row[1],
                state=row[2],
                result=json.loads(row[3]),
                seconds=row[4],
                finished=row[5],
                divergent_version=row[6],
            )
            for row in rows
        ]

    # ---------------------------------------------------------------------------------------
    # Language-model response cache

    def cached_response(self, request_key: str) -> dict[str, Any] | None:
        """The stored response for a request key, or None."""
        row = self._connection.execute(
            "SELECT response FROM llm_responses WHERE request_key = ?", (request_key,)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def save_response(
        self, request_key: str, *, model: str, request: Mapping[str, Any], response: Mapping[str, Any]
    ) -> None:
        """Store a response (the first one saved for a key wins: a cache never changes its answer)."""
        with self._write() as connection:
            connection.execute(
                "INSERT OR IGNORE INTO llm_responses (request_key, model, request, response, created) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    request_key,
                    model,
                    canonical_json(request, what="an LLM request"),
                    canonical_json(response, what="an LLM response"),
                    _now(),
                ),
            )

    def cached_response_count(self, model: str | None = None) -> int:
        """How many responses the cache holds (for one model, or all)."""
        if model is None:
            row = self._connection.execute("SELECT COUNT(*) FROM llm_responses").fetchone()
        else:
            row = self._connection.execute(
                "SELECT COUNT(*) FROM llm_responses WHERE model = ?", (model,)
            ).fetchone()
        return int(row[0])
