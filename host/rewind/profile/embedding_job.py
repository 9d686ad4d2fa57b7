"""The re-embedding job's record in the store, and its store-side steps.

A job re-embeds every passage for a target model while search keeps using the active
model (`meta.embedding_model`); both models' vectors live side by side until the target
covers every passage, then one transaction makes it the active model. Its record is a few
`meta` rows (target, state, passages done, who runs it and when it last wrote), written in
the same transaction as each batch's vectors, so a job killed at any moment resumes where
its last batch landed. Vectors of a model that is neither active nor a job's target (the
old model after a switch, a cancelled target) are garbage, removed in small batches.
This module must never embed: reembedding.py (the runner) does, and calls these.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import asdict, dataclass

from ..index.store.store import Store

STATES = ("running", "paused")
KEYS = ("reembed_target", "reembed_state", "reembed_started", "reembed_done",
        "reembed_owner", "reembed_beat")
STALE_S = 60.0  # a runner silent this long has died, whatever its pid says


@dataclass
class JobRecord:
    target: str  # the model id being embedded for ("name@dim")
    state: str  # running | paused
    started: float  # epoch seconds
    done: int  # passages with a target vector, as counted by the batches
    owner: int  # pid of the process running it (0: nobody yet)
    beat: float  # when its last batch landed

    def to_dict(self) -> dict:
        return asdict(self)

    def owner_alive(self, now: float | None = None) -> bool:
        """Whether another process is running this job now (its pid lives, and it wrote
        within STALE_S)."""
        if not self.owner or self.owner == os.getpid():
            return False
        if (now or time.time()) - self.beat > STALE_S:
            return False
        try:
            os.kill(self.owner, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def read(store: Store) -> JobRecord | None:
    meta = dict(store.db.execute(
        f"SELECT key, value FROM meta WHERE key IN ({','.join('?' * len(KEYS))})", KEYS))
    if not meta.get("reembed_target"):
        return None
    return JobRecord(meta["reembed_target"], meta.get("reembed_state", "running"),
                     float(meta.get("reembed_started", 0)), int(meta.get("reembed_done", 0)),
                     int(meta.get("reembed_owner", 0)), float(meta.get("reembed_beat", 0)))


def _put(db: sqlite3.Connection, values: dict[str, str]) -> None:
    db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", values.items())


def begin(store: Store, target: str) -> JobRecord:
    """Record a job for `target` (running), replacing any other; a target's vectors kept
    from an earlier try count as done."""
    with store.transaction() as db:
        done = db.execute("SELECT COUNT(DISTINCT passage_id) FROM vectors WHERE model_id=?",
                          (target,)).fetchone()[0]
        now = time.time()
        _put(db, {"reembed_target": target, "reembed_state": "running",
                  "reembed_started": repr(now), "reembed_done": str(done),
                  "reembed_owner": "0", "reembed_beat": "0"})
    return read(store)  # type: ignore[return-value]


def set_state(store: Store, state: str) -> None:
    if state not in STATES:
        raise ValueError(f"state {state!r} is not one of {STATES}")
    with store.transaction() as db:
        if db.execute("SELECT 1 FROM meta WHERE key='reembed_target'").fetchone():
            _put(db, {"reembed_state": state})


def clear(store: Store) -> None:
    """Forget the job (cancel); its target's vectors become garbage."""
    with store.transaction() as db:
        db.execute(f"DELETE FROM meta WHERE key IN ({','.join('?' * len(KEYS))})", KEYS)


def claim(db: sqlite3.Connection, done_now: int) -> None:
    """Inside a batch's transaction: this process runs the job; `done_now` more passages."""
    db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key='reembed_done'",
               (done_now,))
    _put(db, {"reembed_owner": str(os.getpid()), "reembed_beat": repr(time.time())})


def finish(store: Store, target: str) -> bool:
    """Make `target` the active model, in one transaction, if its vectors cover every
    passage; the job's record goes with it. False (nothing changed) if any is missing."""
    with store.transaction() as db:
        if db.execute(
                "SELECT 1 FROM passages p WHERE NOT EXISTS (SELECT 1 FROM vectors v"
                " WHERE v.passage_id=p.id AND v.model_id=?) LIMIT 1", (target,)).fetchone():
            return False
        _put(db, {"embedding_model": target})
        db.execute(f"DELETE FROM meta WHERE key IN ({','.join('?' * len(KEYS))})", KEYS)
        db.execute("DELETE FROM meta WHERE key LIKE 'truncated:%' AND key != ?",
                   (f"truncated:{target}",))
    return True


def garbage_models(store: Store, keep: set[str]) -> list[str]:
    """Models with vectors in the store that are neither active nor a job's target."""
    return [m for m, in store.db.execute("SELECT DISTINCT model_id FROM vectors")
            if m not in keep]


def drop_vectors(store: Store, model_id: str, limit: int = 5000) -> int:
    """Delete up to `limit` vectors of `model_id` (one short transaction); how many went."""
    with store.transaction() as db:
        cur = db.execute("DELETE FROM vectors WHERE rowid IN (SELECT rowid FROM vectors"
                         " WHERE model_id=? LIMIT ?)", (model_id, limit))
        return cur.rowcount


def add_truncated(store: Store, model_id: str, n: int) -> None:
    """Count passages whose tail a model could not embed (models/pieces.py)."""
    if n <= 0:
        return
    with store.transaction() as db:
        key = f"truncated:{model_id}"
        db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, '0')", (key,))
        db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key=?", (n, key))


def truncated(store: Store, model_id: str) -> int:
    return int(store.get_meta(f"truncated:{model_id}") or 0)


def split_passages(store: Store, model_id: str) -> int:
    """Passages embedded as several pieces by `model_id`."""
    return store.db.execute("SELECT COUNT(DISTINCT passage_id) FROM vectors"
                            " WHERE model_id=? AND piece > 0", (model_id,)).fetchone()[0]
