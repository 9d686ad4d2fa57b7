"""Keyword search in every language (analysis.py, languages.py) on a real tantivy index:
a page's words analysed by its language, a query by every language the index holds."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from rewind.config import Settings
from rewind.index.crypto.cipher import FieldCipher
from rewind.index.derived.analysis import Analysis, bigrams
from rewind.index.derived.languages import NO_LANGUAGE, UNKNOWN, detect, normalise
from rewind.index.derived.text_index import TextIndex
from rewind.index.store.records import PageRecord, PassageRecord
from rewind.index.store.store import Store
from rewind.profile.language_mix import pages_per_language

PARAGRAPHS = json.loads((Path(__file__).resolve().parents[2] / "data" / "chunk_units.json")
                        .read_text("utf-8"))["paragraphs"]
EN = ("Package management installs programs, updates them and removes them again. Every "
      "change is written to a log file so that you can look later at what happened.")
FR = ("Le gestionnaire de paquets installe les programmes, les met à jour et les supprime. "
      "Chaque modification est enregistrée dans un journal pour pouvoir vérifier plus tard.")
PAGES = {"en": ("Package management", EN), "de": ("Paketverwaltung", PARAGRAPHS["de"]),
         "fr": ("Gestion des paquets", FR), "ja": ("パッケージ管理", PARAGRAPHS["ja"]),
         "zh": ("软件包管理", PARAGRAPHS["zh"]), "th": ("การจัดการแพ็กเกจ", PARAGRAPHS["th"])}


def add(store, url, title, texts, lang=None):
    now = time.time()
    rec = PageRecord(url=url, domain="example.org", title=title, content_hash=url,
                     source="browser", first_visit=now, last_visit=now, visit_count=1,
                     dwell_s=1, metadata={"lang": lang} if lang else {})
    pid, _ = store.upsert_page(rec, [PassageRecord(t, i, (0, len(t)))
                                     for i, t in enumerate(texts)], None, None)
    return pid


@pytest.fixture(params=["plain", "keyed"])
def indexed(request, tmp_path):
    store = Store(tmp_path / "rewind.db")
    cipher = FieldCipher(b"k" * 32, "test") if request.param == "keyed" else None
    index = TextIndex(tmp_path / "text", Settings(), cipher=cipher)
    ids = {lang: add(store, f"https://example.org/{lang}", title, [text])
           for lang, (title, text) in PAGES.items()}
    index.catch_up(store)
    yield store, index, ids
    index.close()
    store.close()


def top(index, query):
    hits = index.search(query, 5)
    return hits[0].page_id if hits else None


def test_each_page_gets_its_language_and_the_mix_counts_pages(indexed):
    _store, index, _ids = indexed
    assert pages_per_language(index) == {lang: 1 for lang in PAGES}
    assert index.languages() >= set(PAGES)


@pytest.mark.parametrize(("lang", "query"), [
    ("de", "Paketverwaltung"),  # the German word, as remembered
    ("de", "Konfigurationsdatei"),  # singular for "Konfigurationsdateien": stemmed
    ("de", "Aenderung"),  # "Änderung" typed without the umlaut (folded)
    ("fr", "modifications enregistrées"),
    ("fr", "supprimer paquet"),  # "supprime", "paquets": stemmed
    ("ja", "設定ファイル"),
    ("ja", "ログ"),
    ("zh", "配置文件"),
    ("zh", "日志"),
    ("th", "ไฟล์บันทึก"),
    ("en", "log files"),
])
def test_a_word_of_the_page_finds_it_in_its_language(indexed, lang, query):
    _store, index, ids = indexed
    assert top(index, query) == ids[lang], index.search(query, 5)


def test_german_stop_words_find_nothing_alone(indexed):
    _store, index, _ids = indexed
    assert index.search("die und von", 5) == []


def test_highlights_in_every_script(indexed):
    _store, index, _ids = indexed
    text = PARAGRAPHS["de"]
    ranges = index.highlights("Konfigurationsdatei", text)
    assert [text[a:b] for a, b in ranges] == ["Konfigurationsdateien"]
    text = PARAGRAPHS["ja"]
    # "ファイル" of ログファイル too: its pairs are the query's
    assert [text[a:b] for a, b in index.highlights("設定ファイル", text)] == ["ファイル",
                                                                          "設定ファイル"]


def test_a_declared_language_the_text_contradicts_is_corrected():
    v = detect(PARAGRAPHS["de"], "en-US")
    assert (v.lang, v.declared, v.detected) == ("de", "en", "de")
    assert detect("Kurz", "de-AT").lang == "de"  # too short to check: as declared
    assert detect("ok").lang == UNKNOWN
    assert normalise("zh_Hans") == "zh" and normalise("nb-NO") == "no" and normalise("") is None


def test_the_detector_reads_text_of_twenty_letters_or_more():
    few = "— Das ist, ja: gut! abcdefgh"  # 19 letters among other characters
    assert sum(c.isalnum() for c in few) == 19
    assert detect(few).detected is None
    assert detect(few + "h").detected is not None


def test_bigrams_and_english_as_before():
    assert bigrams("管理") == ["管理"] and bigrams("設定ファイル")[:2] == ["設定", "定フ"]
    a = Analysis()
    assert a.terms("The pruned trees were pruning", "en") == ["prune", "tree", "prune"]
    assert a.terms("The pruned trees", None) == a.terms("The pruned trees", "en")
    assert a.terms("Größe der Pakete", "de") == ["gross", "pak"]  # Snowball's German


def test_a_page_of_no_language_is_analysed_as_english():
    a = Analysis()
    names = "(wave.Wave_read method) RFC 2109, [1], [2] RFC 2183"  # an index page: `zxx`
    assert a.terms(names, NO_LANGUAGE) == a.terms(names, "en")
    question = "how do i prune the trees"
    # An English history with such a page: the query's terms are English's alone...
    assert a.query_terms(question, {"en", UNKNOWN, NO_LANGUAGE}) == ["prune", "tree"]
    # ...where a language without a stemmer adds the plain analysis, stop words and all.
    assert {"how", "do", "i"} <= set(a.query_terms(question, {"en", "pl"}))
