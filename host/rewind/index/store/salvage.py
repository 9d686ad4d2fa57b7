"""`rewind doctor --repair`: what can be read of a damaged store, copied into a new one.

SQLite's own `.recover` needs a build with the sqlite_dbpage table, which Debian's lacks,
so the rows are read through SQL: each table in ranges of row ids, a range that fails to
read split in two until the unreadable rows are found and left out. The readable rows go
into a new store (today's schema) with their ids, so pages, their passages and vectors
stay together; a passage whose page was lost, or a vector whose passage was, is left out
too. The damaged file is kept beside the new one (`rewind.db.damaged-<time>`), the derived
indexes are removed (they are rebuilt from the new store), and the report says what was
recovered and what was lost. Sealed values are copied as they are: the key stays the same.
This module must never change the damaged file, and never put the new store in place
unless it passes SQLite's integrity check.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import Code, RewindError
from .store import Store

TABLES = ("meta", "pages", "passages", "vectors", "tombstones")  # parents before children
_RANGE = 512


@dataclass
class SalvageReport:
    kept: dict[str, int] = field(default_factory=dict)  # table -> rows copied
    lost: dict[str, int] = field(default_factory=dict)  # table -> rows unreadable or orphaned
    damaged_copy: str = ""  # where the damaged file now is

    def lines(self) -> list[str]:
        out = [f"{t}: {self.kept.get(t, 0)} recovered, {self.lost.get(t, 0)} lost"
               for t in ("pages", "passages", "vectors")]
        return [*out, f"the damaged file is kept as {self.damaged_copy}",
                "passages left without a vector are embedded again (the helper does it, "
                "or `rewind reindex`)"]


def _read_range(db: sqlite3.Connection, table: str, cols: str, lo: int, hi: int,
                rows: list[tuple], lost: list[int]) -> None:
    """Rows of `table` with lo <= rowid <= hi into `rows`; unreadable single ids into `lost`."""
    try:
        got = db.execute(f"SELECT rowid, {cols} FROM {table} WHERE rowid BETWEEN ? AND ?",
                         (lo, hi)).fetchall()
    except sqlite3.DatabaseError:
        if lo == hi:
            lost.append(lo)
            return
        mid = (lo + hi) // 2
        _read_range(db, table, cols, lo, mid, rows, lost)
        _read_range(db, table, cols, mid + 1, hi, rows, lost)
        return
    rows.extend(got)


def _max_rowid(db: sqlite3.Connection, table: str) -> int:
    """The largest row id, or (its page unreadable) what AUTOINCREMENT last gave out."""
    try:
        return int(db.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {table}").fetchone()[0])
    except sqlite3.DatabaseError:
        pass
    try:
        row = db.execute("SELECT seq FROM sqlite_sequence WHERE name=?", (table,)).fetchone()
        if row:
            return int(row[0])
    except sqlite3.DatabaseError:
        pass
    return 1_000_000  # a guess: ranges past the end read nothing, quickly


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in db.execute(f"PRAGMA table_info({table})")]


def busy_elsewhere(path: Path) -> list[int]:
    """Other processes with `path` open (Linux: /proc); [] where that cannot be seen."""
    target = os.path.realpath(path)
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        if proc.name == str(os.getpid()):
            continue
        try:
            if any(os.path.realpath(fd) == target for fd in (proc / "fd").iterdir()):
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def salvage(db_path: Path) -> SalvageReport:
    """Copy what can be read of `db_path` into a new store put in its place."""
    others = busy_elsewhere(db_path)
    if others:
        raise RewindError(
            Code.STORE_LOCKED, f"The store is open in other processes ({others}).",
            "Close the browser (its helper) and any other `rewind` command, then repair.")
    new_path = db_path.with_name(db_path.name + ".salvaged")
    for p in (new_path, Path(f"{new_path}-wal"), Path(f"{new_path}-shm")):
        p.unlink(missing_ok=True)
    report = SalvageReport()
    old = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    new = Store(new_path)
    try:
        for table in TABLES:
            try:
                have = _columns(old, table)
            except sqlite3.DatabaseError:
                have = []
            cols = [c for c in _columns(new.db, table) if c in have]
            if not cols:
                continue
            rows: list[tuple] = []
            lost: list[int] = []
            _read_range_all(old, table, ", ".join(cols), rows, lost)
            _insert(new.db, table, cols, rows)
            kept = new.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            report.kept[table] = kept
            report.lost[table] = max(0, len(lost) + len(rows) - kept)
        problems = new.integrity()
        if problems:
            raise RewindError(Code.STORE_CORRUPT, "The recovered store fails its own check ("
                              f"{'; '.join(problems)}); nothing was changed.",
                              "Restore a backup (`rewind import`), or `rewind reset`.")
    finally:
        old.close()
        new.close()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = db_path.with_name(f"{db_path.name}.damaged-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{db_path}{suffix}")
        if src.exists():
            os.replace(src, Path(f"{aside}{suffix}"))
    os.replace(new_path, db_path)
    report.damaged_copy = str(aside)
    for derived in ("text_index", "vectors"):  # made from the old file: rebuilt from the new
        shutil.rmtree(db_path.parent / derived, ignore_errors=True)
    return report


def _read_range_all(db: sqlite3.Connection, table: str, cols: str, rows: list[tuple],
                    lost: list[int]) -> None:
    top = _max_rowid(db, table)
    for lo in range(1, top + 1, _RANGE):
        _read_range(db, table, cols, lo, min(top, lo + _RANGE - 1), rows, lost)


def _insert(db: sqlite3.Connection, table: str, cols: list[str], rows: list[tuple]) -> None:
    """Insert the readable rows, their row ids kept; rows whose parent is gone are left out
    (foreign keys are on)."""
    marks = ", ".join("?" for _ in cols)
    verb = "INSERT OR REPLACE" if table == "meta" else "INSERT OR IGNORE"
    if table == "meta":  # the new store's schema version is its own (it was made today's)
        rows = [r for r in rows if r[1] != "schema_version"]
    db.execute("BEGIN")
    for row in rows:
        try:
            db.execute(f"{verb} INTO {table}(rowid, {', '.join(cols)}) VALUES (?, {marks})", row)
        except sqlite3.IntegrityError:  # an orphan: its page or passage was lost
            continue
    db.execute("COMMIT")
