"""The profiles that already have a store, for `list_profiles` (read-only).

Job: say which profile folders exist under Rewind's data directory, with each one's page
count and last-indexed time, so an extension installed again (a new profile id) can find
and adopt the history it had instead of starting an empty one beside it.
Never: create, open for writing or migrate anything (a folder without a store is skipped,
a store that cannot be read is listed with its problem), or follow a profile name that is
not a valid profile id.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import config

DB_FILE = "rewind.db"  # stores.DB_NAME (stores opens SQLite with its cipher: not here)


@dataclass(frozen=True)
class ProfileInfo:
    profile: str
    data_dir: str
    pages: int | None  # None when the store could not be read (see `problem`)
    last_indexed: float | None  # epoch s of the newest indexed page; None when empty
    last_used: float  # epoch s: the store's (or its WAL's) last change on disk
    problem: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _read_counts(db: Path) -> tuple[int, float | None]:
    # With a WAL file a writer may be at work: read through it (mode=ro creates nothing the
    # WAL has not). Without one the file is the whole store: immutable=1 opens it without
    # creating the -wal and -shm files a read-only WAL connection would otherwise leave.
    wal = db.with_name(db.name + "-wal").exists()
    uri = db.resolve().as_uri() + ("?mode=ro" if wal else "?mode=ro&immutable=1")
    conn = sqlite3.connect(uri, uri=True, timeout=2.0)
    try:
        pages, last = conn.execute("SELECT COUNT(*), MAX(indexed_at) FROM pages").fetchone()
        return int(pages), (float(last) if last is not None else None)
    finally:
        conn.close()


def _last_used(db: Path) -> float:
    times = []
    for f in (db, db.with_name(db.name + "-wal")):
        try:
            times.append(f.stat().st_mtime)
        except OSError:
            continue
    return max(times, default=0.0)


def describe(profile: str, data_dir: Path) -> ProfileInfo | None:
    """One profile's folder, or None when it holds no store."""
    db = data_dir / DB_FILE
    if not db.is_file():
        return None
    try:
        pages, last = _read_counts(db)
        problem = None
    except sqlite3.Error as exc:
        pages, last, problem = None, None, f"the store could not be read ({exc})"
    return ProfileInfo(profile, str(data_dir), pages, last, _last_used(db), problem)


def list_profiles(root: Path | None = None) -> list[ProfileInfo]:
    """Profiles with a store under `root` (default: the per-user app data dir's profiles/),
    the most recently used first."""
    base = root if root is not None else config.profiles_dir()
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []  # no profiles folder yet: nothing to adopt
    found = []
    for name in names:
        if not config.valid_profile(name) or not (base / name).is_dir():
            continue
        info = describe(name, base / name)
        if info is not None:
            found.append(info)
    found.sort(key=lambda p: (p.last_indexed or 0.0, p.last_used), reverse=True)
    return found


def forced_data_dir(override: str | os.PathLike[str] | None) -> Path | None:
    """The one data dir every profile uses when --data-dir or $REWIND_DATA_DIR forces it."""
    forced = override or os.environ.get("REWIND_DATA_DIR")
    return Path(forced).expanduser() if forced else None
