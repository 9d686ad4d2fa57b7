"""Importing a backup or a portable export into a profile: checked first, then merged.

The whole file is read and checked before the first page is written (a damaged, cut,
foreign or newer file, or a wrong passphrase, changes nothing). Each page then goes
through the profile's capture gate like a page from the browser (the person's rules, the
sensitive-page policy, masking, the content check: a backup from elsewhere cannot bring
in what this profile refuses), and is merged: visits combine (the earliest first visit,
the latest last visit, the larger count and reading time, so importing twice changes
nothing); the text kept is the more recently indexed. Vectors are reused when the backup
was made with the store's model and masking changed nothing, else the page is embedded.
The backup's settings and recording rules apply only to a profile that has none yet.
This module must never write anything the gate refused, nor page text anywhere but the
store.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..capture import urls
from ..capture.gate import RULES_FILE, save_choices
from ..capture.ingest import clean, content_hash
from ..errors import Code, RewindError
from ..index.store.records import PageRecord, PassageRecord
from ..models.pieces import embed_passages
from ..profile import settings as profile_settings
from . import backup

if TYPE_CHECKING:
    from ..profile.engine import Rewind

Progress = Callable[[int, int], None]


@dataclass
class ImportResult:
    kind: str  # backup | export
    pages: int = 0
    new: int = 0
    merged: int = 0  # visits or text taken into a page already stored
    unchanged: int = 0
    skipped: int = 0  # refused by the capture gate
    embedded: int = 0  # pages embedded here (no matching vectors)
    settings: bool = False  # the backup's settings were applied

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Incoming:
    page: PageRecord
    passages: list[PassageRecord]
    vectors: np.ndarray | None  # of `model_id`, one row a passage


def _from_backup(rec: dict) -> tuple[PageRecord, list[PassageRecord], list[bytes | None]]:
    page = PageRecord(url=rec["url"], domain=rec.get("domain", ""), title=rec["title"],
                      content_hash="", source=str(rec.get("source", "import")),
                      first_visit=float(rec["first_visit"]), last_visit=float(rec["last_visit"]),
                      visit_count=int(rec["visit_count"]), dwell_s=float(rec["dwell_s"]),
                      metadata=rec.get("metadata") if isinstance(rec.get("metadata"), dict)
                      else {}, indexed_at=float(rec["indexed_at"]))
    passages = [PassageRecord(t, int(pos), (int(s), int(e)), float(q), bool(title))
                for t, pos, s, e, q, title, _v in rec["passages"]]
    return page, passages, [p[6] for p in rec["passages"]]


def _from_export(rec: dict) -> tuple[PageRecord, list[PassageRecord], list[bytes | None]]:
    def num(key: str, default: float) -> float:
        v = rec.get(key)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else default

    now = time.time()
    page = PageRecord(url=rec["url"], domain="", title=str(rec.get("title") or ""),
                      content_hash="", source=str(rec.get("source") or "import"),
                      first_visit=num("first_visit", now), last_visit=num("last_visit", now),
                      visit_count=max(1, int(num("visit_count", 1))), dwell_s=num("dwell_s", 0),
                      indexed_at=num("indexed_at", now))
    passages, offset = [], 0
    for i, p in enumerate(rec["passages"]):
        text = p["text"]
        pos = p.get("position")
        q = p.get("quality")
        passages.append(PassageRecord(
            text, int(pos) if isinstance(pos, int) else i, (offset, offset + len(text)),
            float(q) if isinstance(q, int | float) else 0.5,
            bool(p.get("is_title", text == page.title))))
        offset += len(text) + 2
    return page, passages, [None] * len(passages)


def import_page(eng: Rewind, page: PageRecord, passages: list[PassageRecord],
                vecs: list[bytes | None], model_id: str | None, result: ImportResult) -> None:
    s = eng.settings
    gate = eng.gate()
    url = urls.normalize(page.url, s.max_url_chars)
    verdict = gate.screen_url(url)
    title = clean(page.title, gate.redact)[: s.max_title_chars]
    kept = []
    for p in passages:
        text = clean(p.text, gate.redact)[: s.max_passage_chars]
        if text:
            kept.append((PassageRecord(text, p.position, p.span, min(1.0, max(0.0, p.quality)),
                                       p.is_title), p.text == text))
    texts = [p.text for p, _ in kept if not p.is_title]
    if verdict is None and not texts:
        raise RewindError(Code.BAD_INPUT, f"{url} has no text.")
    verdict = verdict or gate.screen_text(url, title, texts)
    if verdict is not None:
        result.skipped += 1
        eng.audit.write("skipped", site=urls.domain(url), category=verdict.category,
                        rule=verdict.rule, source="import")
        return
    records = [p for p, _ in kept]
    chash = content_hash(title, records)
    existing = eng.reader().page_by_url(url)
    take_text = existing is None or (existing.content_hash != chash
                                      and page.indexed_at > existing.indexed_at)
    vectors, vec_model = None, None
    if take_text:
        emb = eng.embedder()
        same_model = model_id is not None and emb is not None and model_id == emb.model_id
        unchanged = all(same for _, same in kept) and len(kept) == len(passages)
        if same_model and unchanged and all(v is not None and len(v) == 2 * emb.dim
                                            for v in vecs):
            vectors = np.stack([np.frombuffer(v, np.float16) for v in vecs]  # type: ignore
                               ).astype(np.float32)
            vec_model = model_id
        elif emb is not None:
            vectors = embed_passages(emb, [p.text for p in records])
            vec_model = emb.model_id
            result.embedded += 1
    with eng.writing() as store:
        existing = store.page_by_url(url)
        merged = PageRecord(
            url=url, domain=urls.domain(url), title=title, content_hash=chash,
            source=page.source, metadata=page.metadata,
            first_visit=page.first_visit, last_visit=page.last_visit,
            visit_count=page.visit_count, dwell_s=page.dwell_s, indexed_at=page.indexed_at)
        if existing is not None:
            same_visits = (existing.first_visit <= page.first_visit
                           and existing.last_visit >= page.last_visit
                           and existing.visit_count >= page.visit_count
                           and existing.dwell_s >= page.dwell_s)
            if not take_text:
                if same_visits:
                    result.unchanged += 1
                    return
                merged.title, merged.content_hash = existing.title, existing.content_hash
                merged.metadata, merged.indexed_at = existing.metadata, existing.indexed_at
            merged.first_visit = min(existing.first_visit, page.first_visit)
            merged.last_visit = max(existing.last_visit, page.last_visit)
            merged.visit_count = max(existing.visit_count, page.visit_count)
            merged.dwell_s = max(existing.dwell_s, page.dwell_s)
        if vec_model and not store.get_meta("embedding_model"):
            store.set_meta("embedding_model", vec_model)
        if vec_model and vec_model != eng.model_id():
            vectors, vec_model = None, None
        store.upsert_page(merged, records if take_text else None,
                          vectors if take_text else None, vec_model)
    if existing is None:
        result.new += 1
        eng.audit.write("indexed", url=url, passages=len(records), source="import")
    else:
        result.merged += 1


def _apply_settings(eng: Rewind, rec: dict, result: ImportResult) -> None:
    """A new computer gets the old one's choices; a profile with its own keeps them."""
    saved = rec.get("host_settings")
    if isinstance(saved, dict) and saved and \
            not (eng.data_dir / profile_settings.FILE).exists():
        good = {}
        for k, v in saved.items():
            try:
                good[k] = v if v is None else profile_settings.config.check_user_value(k, v)
            except ValueError:
                continue  # a setting this host does not know
        profile_settings.save(eng.data_dir, good)
        result.settings = True
    rules = rec.get("capture_rules")
    if isinstance(rules, dict) and not (eng.data_dir / RULES_FILE).exists():
        try:
            save_choices(eng.data_dir, rules.get("rules", {}), rules.get("redact"))
            eng.set_rules(rules.get("rules", {}), rules.get("redact"))
            result.settings = True
        except (ValueError, TypeError):
            pass  # rules of another version: this profile keeps the built-in ones


def restore(eng: Rewind, path: Path, passphrase: str | None = None,
            progress: Progress | None = None) -> ImportResult:
    """Check `path` whole, then import it; refused (RewindError, nothing changed) when the
    file is damaged, cut short, of another kind, newer, or the passphrase is wrong."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 (closed below, read twice)
    except OSError as exc:
        raise RewindError(Code.NOT_FOUND, f"Cannot read {path}: {exc.strerror}.") from None
    with fh:
        kind = backup.kind_of(fh.read(16))
        fh.seek(0)
        if kind == "backup":
            counts = backup.verify(fh, passphrase)
            fh.seek(0)
            header, items = backup.records(fh, passphrase)
            total, model_id, convert = counts["pages"], header.model_id, _from_backup
        elif kind == "export":
            pages = backup.read_export(fh)
            items = iter({"t": "page", **p} for p in pages)
            total, model_id, convert = len(pages), None, _from_export
        else:
            raise backup.refused("it is neither a Rewind backup nor a Rewind export",
                                 "Choose a file written by `rewind export` or the options page.")
        result = ImportResult(kind)
        for rec in items:
            if rec.get("t") == "settings":
                _apply_settings(eng, rec, result)
                continue
            if rec.get("t") != "page":
                continue
            page, passages, vecs = convert(rec)
            try:
                import_page(eng, page, passages, vecs, model_id, result)
            except RewindError as exc:
                if exc.code in (Code.STORE_LOCKED, Code.DISK_FULL, Code.STORE_CORRUPT):
                    raise
                result.skipped += 1
            result.pages += 1
            if progress:
                progress(result.pages, total)
    eng.audit.write("imported", file=os.path.basename(str(path)), kind=kind,
                    pages=result.pages, new=result.new, merged=result.merged,
                    skipped=result.skipped)
    return result
