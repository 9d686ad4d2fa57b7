"""The history's languages in stats, and the multilingual model offered for them: real
engine, real tantivy, the real detector, and the real model folder (the offer needs the
multilingual model installed)."""

from __future__ import annotations

import json
from pathlib import Path

from rewind.config import Settings
from rewind.models.embedder import FakeEmbedder
from rewind.profile.engine import Rewind
from support.onnx_fixtures import real_model_dir

PARAGRAPHS = json.loads((Path(__file__).resolve().parents[1] / "data" / "chunk_units.json")
                        .read_text("utf-8"))["paragraphs"]
EN = ("Package management installs programs, updates them and removes them again. Every "
      "change is written to a log file so that you can look later at what happened, and a "
      "package you no longer need goes with a single command.")


def fill(eng: Rewind, counts: dict[str, int]) -> None:
    texts = {"en": EN, "de": PARAGRAPHS["de"], "ja": PARAGRAPHS["ja"]}
    for lang, n in counts.items():
        for i in range(n):
            eng.ingest(f"https://{lang}.example.org/{i}", f"{texts[lang]} ({i})",
                       {"title": f"{lang} {i}"})


def test_an_english_history_is_offered_nothing(tmp_path):
    md = real_model_dir("multilingual-e5-small")
    with Rewind.open(tmp_path, Settings(), embedder=FakeEmbedder(dim=384),
                     model_dir=md) as eng:
        fill(eng, {"en": 12, "de": 1})
        langs = eng.stats()["languages"]
    assert langs["pages"] == {"en": 12, "de": 1}
    assert langs["names"]["de"] == "German" and langs["offer"] is None


def test_a_history_partly_in_german_and_japanese_is_offered_the_multilingual_model(tmp_path):
    md = real_model_dir("multilingual-e5-small")
    with Rewind.open(tmp_path, Settings(), embedder=FakeEmbedder(dim=384),
                     model_dir=md) as eng:
        fill(eng, {"en": 6, "de": 3, "ja": 3})
        langs = eng.stats()["languages"]
    offer = langs["offer"]
    assert offer["model"] == "multilingual-e5-small" and offer["languages"] == ["de", "ja"]
    assert offer["text"].startswith("50 % of your pages are in German or Japanese")
    assert langs["other_share"] == 0.5


def test_no_offer_below_the_share_or_when_the_model_is_in_use(tmp_path):
    md = real_model_dir("multilingual-e5-small")
    s = Settings(multilingual_offer_share=0.6)
    with Rewind.open(tmp_path / "a", s, embedder=FakeEmbedder(dim=384), model_dir=md) as eng:
        fill(eng, {"en": 6, "de": 6})
        assert eng.stats()["languages"]["offer"] is None
    s = Settings(default_embedding_model="multilingual-e5-small")
    with Rewind.open(tmp_path / "b", s, model_dir=md) as eng:
        fill(eng, {"en": 6, "de": 6})
        assert eng.stats()["languages"]["offer"] is None
