"""A profile written out: the full backup's bytes, or the portable JSON export.

Both read one consistent snapshot of the store (a read transaction: pages written
meanwhile are in the next backup, never half in this one), pages in the order they were
first stored, so an import gives them back in the same order.
This module must never write to the store.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import IO, TYPE_CHECKING

from .. import __version__
from ..capture.gate import RULES_FILE
from ..index.store.records import encode_vector
from ..profile import settings as profile_settings
from . import backup

if TYPE_CHECKING:
    from ..index.store.store import Store
    from ..profile.engine import Rewind

Progress = Callable[[int, int], None]
BATCH = 100


@contextmanager
def snapshot(eng: Rewind) -> Iterator[Store]:
    store = eng.reader()
    store.db.execute("BEGIN")
    try:
        yield store
    finally:
        store.db.execute("COMMIT")


def page_records(store: Store, model_id: str, vectors: bool) -> Iterator[dict]:
    ids = sorted(store.all_page_ids())
    for start in range(0, len(ids), BATCH):
        batch = ids[start:start + BATCH]
        pages = store.pages_by_ids(batch)
        rows = store.passages_of(batch)
        vec: dict[int, bytes] = {}
        if vectors:
            pids, _pages, mat = store.vectors_of(batch, model_id)
            for i, p in enumerate(pids):  # float16; a passage in pieces: its first piece
                vec.setdefault(int(p), encode_vector(mat[i]))
        by_page: dict[int, list] = {}
        for pid, page_id, p in rows:
            by_page.setdefault(page_id, []).append(
                [p.text, p.position, p.span[0], p.span[1], p.quality, p.is_title, vec.get(pid)])
        for page_id in batch:
            p = pages.get(page_id)
            if p is None:
                continue
            yield {"t": "page", "url": p.url, "domain": p.domain, "title": p.title,
                   "source": p.source, "metadata": p.metadata, "content_hash": p.content_hash,
                   "first_visit": p.first_visit, "last_visit": p.last_visit,
                   "visit_count": p.visit_count, "dwell_s": p.dwell_s,
                   "indexed_at": p.indexed_at, "passages": by_page.get(page_id, [])}


def settings_record(eng: Rewind) -> dict:
    rules = None
    with suppress(OSError, ValueError):
        rules = json.loads((eng.data_dir / RULES_FILE).read_text(encoding="utf-8"))
    return {"t": "settings", "host_settings": profile_settings.load(eng.data_dir),
            "capture_rules": rules}


def backup_bytes(eng: Rewind, passphrase: str | None = None,
                 progress: Progress | None = None, counts: dict | None = None
                 ) -> Iterator[bytes]:
    """The full backup file, as the bytes to write, in order. `counts` gets the totals."""
    model_id = eng.model_id()
    writer = backup.Writer(model_id, passphrase, eng.settings.backup_segment_bytes)
    yield writer.start()
    with snapshot(eng) as store:
        total = store.counts()["pages"]
        n = passages = 0
        for rec in page_records(store, model_id, vectors=True):
            yield from writer.add(rec)
            n += 1
            passages += len(rec["passages"])
            if progress:
                progress(n, total)
    yield from writer.add(settings_record(eng))
    yield from writer.add({"t": "end", "pages": n})
    yield writer.finish()
    if counts is not None:
        counts.update(pages=n, passages=passages)


def export_json(eng: Rewind, fh: IO[str], progress: Progress | None = None) -> int:
    """The portable export (no vectors), written to `fh`; the pages written."""
    fh.write(json.dumps({"format": backup.EXPORT_FORMAT, "version": backup.EXPORT_VERSION,
                         "host_version": __version__})[:-1] + ', "pages": [')
    n = 0
    with snapshot(eng) as store:
        total = store.counts()["pages"]
        for rec in page_records(store, eng.model_id(), vectors=False):
            page = {k: v for k, v in rec.items() if k not in ("t", "passages", "content_hash")}
            page["passages"] = [{"text": t, "position": pos, "quality": q, "is_title": title}
                                for t, pos, _s, _e, q, title, _v in rec["passages"]]
            fh.write((",\n" if n else "\n") + json.dumps(page, ensure_ascii=False))
            n += 1
            if progress:
                progress(n, total)
    fh.write(f'\n], "pages_total": {n}}}\n')
    return n
