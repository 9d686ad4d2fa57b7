"""Retention (profile/retention.py through the engine): off by default; a maximum age and a
maximum size forget the oldest pages first, measured in the store's own bytes."""

import dataclasses
import time

from rewind.capture.ingest import PageInput, PassageInput
from rewind.config import Settings
from rewind.models.embedder import FakeEmbedder
from rewind.profile.engine import Rewind

DAY = 86400.0
VOCAB = [f"{a}{b}" for a in ("tea", "rain", "moss", "fern", "lake", "pine") for b in
         ("ling", "ward", "side", "fall", "wood", "mere", "ness", "holm", "by", "thorpe")]


def fill(eng, n, *, words=40, passages=1, start=None):
    now = time.time() if start is None else start
    for i in range(n):
        texts = [" ".join(VOCAB[(i * 7 + k * 13 + j * j) % len(VOCAB)] for j in range(words))
                 for k in range(passages)]
        eng.index_page(PageInput(f"https://s.example/{i}", f"Page {i}",
                                 [PassageInput(t) for t in texts],
                                 visited_at=now - (n - i) * DAY + 3600))


def test_off_by_default(fake_engine):
    fill(fake_engine, 5, start=time.time() - 1000 * DAY)
    assert fake_engine.apply_retention() == 0
    assert fake_engine.stats()["pages"] == 5
    assert fake_engine.stats()["retention"] == {"max_age_days": 0, "max_mb": 0}


def test_max_age_forgets_what_was_not_visited_since(tmp_path):
    s = dataclasses.replace(Settings(), retention_max_age_days=3)
    with Rewind.open(tmp_path / "d", s, embedder=FakeEmbedder()) as eng:
        fill(eng, 6)  # visited 6 .. 1 days ago (less an hour)
        assert eng.apply_retention() == 3
        left = sorted(p["url"] for p in eng.list_pages(0, 100))
        assert left == [f"https://s.example/{i}" for i in (3, 4, 5)]
        assert [e["event"] for e in eng.audit.entries()][-1] == "expired"


def test_max_size_forgets_oldest_first_until_under(tmp_path):
    with Rewind.open(tmp_path / "d", embedder=FakeEmbedder()) as eng:
        fill(eng, 100, words=150, passages=20)
        before = eng.forgetting.sizes()
    limit_mb = int(before.used_bytes * 0.6 / 1e6)
    assert limit_mb >= 2, before
    s = dataclasses.replace(Settings(), retention_max_mb=limit_mb)
    with Rewind.open(tmp_path / "d", s, embedder=FakeEmbedder()) as eng:  # applied at open
        assert [e["event"] for e in eng.audit.entries()][-1] == "expired"
        left = sorted(int(p["url"].rsplit("/", 1)[1]) for p in eng.list_pages(0, 100))
        assert left == list(range(100 - len(left), 100))  # the newest stayed
        after = eng.forgetting.sizes()
        assert after.database_bytes <= limit_mb * 1_000_000, after
        assert after.database_bytes > limit_mb * 1_000_000 * 0.8, after  # not far more
        assert eng.apply_retention() == 0  # what stays is under the limit


def test_applied_while_writing(tmp_path):
    s = dataclasses.replace(Settings(), retention_max_age_days=2, retention_every_writes=4)
    with Rewind.open(tmp_path / "d", s, embedder=FakeEmbedder()) as eng:
        fill(eng, 8)  # visited 8 .. 1 days ago (less an hour); the 4th and 8th writes apply
        left = sorted(p["url"] for p in eng.list_pages(0, 100))
        assert left == [f"https://s.example/{i}" for i in (6, 7)]  # the last 2 days
        expired = [e["pages"] for e in eng.audit.entries() if e["event"] == "expired"]
        assert expired == [4, 2]  # the 4th write: pages 0-3; the 8th: 4 and 5
