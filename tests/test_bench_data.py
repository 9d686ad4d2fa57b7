"""Unit tests of the benchmark's own logic: metrics, FAQ parsing, known-item queries,
the docs/benchmarks.md section writer and the recommended fusion. No network, no model:
the FAQ structure comes from an inline fixture shaped like Sphinx's output."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench.common import data, report
from bench.common.data import FaqPair, known_item_queries, parse_faq_html, question_queries
from bench.common.metrics import (
    evaluate,
    ndcg,
    normalize_answer,
    recall,
    reciprocal_rank,
    token_prf,
)
from bench.labs.fusion_methods import FuseParams, fuse
from bench.labs.fusion_retrieval import chunk

# ---- metrics (hand-computed) ----------------------------------------------------------------


def test_reciprocal_rank():
    assert reciprocal_rank(["a", "b", "c"], {"a"}) == 1.0
    assert reciprocal_rank(["a", "b", "c"], {"c"}) == pytest.approx(1 / 3)
    assert reciprocal_rank(["a", "b", "c"], {"b", "c"}) == 0.5  # first relevant counts
    assert reciprocal_rank(["a", "b", "c"], {"z"}) == 0.0
    assert reciprocal_rank([str(i) for i in range(20)], {"10"}) == 0.0  # rank 11 > k=10
    assert reciprocal_rank([str(i) for i in range(20)], {"9"}) == 0.1
    assert reciprocal_rank(["a", "b"], {"b"}, k=1) == 0.0
    assert reciprocal_rank([], {"a"}) == 0.0



def test_token_f1_is_squads():
    assert normalize_answer("The  Cat, sat on a mat!") == "cat sat on mat"
    assert token_prf("the cat sat", "a cat sat down") == pytest.approx((1.0, 2 / 3, 0.8))
    assert token_prf("cat cat", "cat")[0] == 0.5  # a repeated token counts once per match
    assert token_prf("", "cat") == (0.0, 0.0, 0.0)
    assert token_prf("", "the") == (1.0, 1.0, 1.0)  # both empty after normalising
    assert token_prf("dog", "cat") == (0.0, 0.0, 0.0)


def test_quantile_is_nearest_rank():
    xs = [5.0, 1.0, 3.0, 2.0, 4.0]
    assert report.quantile(xs, 0) == 1.0
    assert report.quantile(xs, 0.5) == 3.0
    assert report.quantile(xs, 1) == 5.0
    assert report.quantile([7.0], 0.95) == 7.0

def test_ndcg_binary():
    assert ndcg(["a", "b"], {"a"}) == 1.0
    # one relevant at rank 2: (1/log2(3)) / 1
    assert ndcg(["x", "a"], {"a"}) == pytest.approx(1 / math.log2(3))
    # two relevant at ranks 1 and 3: (1 + 1/log2(4)) / (1 + 1/log2(3))
    assert ndcg(["a", "x", "b"], {"a", "b"}) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    # a repeated relevant id counts once
    assert ndcg(["a", "a"], {"a", "b"}) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert ndcg(["x"] * 10 + ["a"], {"a"}) == 0.0
    assert ndcg(["a"], set()) == 0.0


def test_recall():
    assert recall(["a", "b", "c"], {"a", "c", "z"}) == pytest.approx(2 / 3)
    assert recall(["a", "a", "a"], {"a", "b"}) == 0.5
    assert recall(["x"] * 10 + ["a"], {"a"}) == 0.0
    assert recall(["a"], set()) == 0.0


def test_evaluate_means_over_queries():
    s = evaluate([(["a", "b"], ["a"]), (["a", "b"], ["b"]), (["a", "b"], ["z"])])
    assert s.n == 3
    assert s.mrr == pytest.approx((1 + 0.5 + 0) / 3)
    assert s.ndcg == pytest.approx((1 + 1 / math.log2(3) + 0) / 3)
    assert s.recall == pytest.approx(2 / 3)
    assert s.row() == [f"{s.mrr:.3f}", f"{s.ndcg:.3f}", f"{s.recall:.3f}"]
    with pytest.raises(ValueError):
        evaluate([])


# ---- FAQ parsing ----------------------------------------------------------------------------

FAQ_HTML = """<!DOCTYPE html><html><head><title>Design FAQ</title>
<script>var noise = "Why script?";</script><style>h2 { color: red }</style></head>
<body><div class="sphinxsidebar"><h3>Navigation</h3><h4>Is this a sidebar?</h4></div>
<section id="design-faq">
<h1>Design and History FAQ<a class="headerlink" href="#design-faq">¶</a></h1>
<nav class="contents"><p>Contents</p><ul><li><a href="#why-x">Why does X happen?</a></li></ul></nav>
<section id="why-x">
<h2><a class="toc-backref" href="#id1">Why does X happen?</a><a class="headerlink"
 href="#why-x">¶</a></h2>
<p>Because X is
wrapped over two lines.</p>
<div class="highlight"><pre>if x:
    y()
</pre></div>
<section id="details">
<h3>Some details<a class="headerlink" href="#details">¶</a></h3>
<p>Details belong to the answer.</p>
</section>
<section id="how-nested">
<h3>How is a nested question parsed?<a class="headerlink" href="#how-nested">¶</a></h3>
<p>On its own.</p>
</section>
<p>Closing words of X.</p>
</section>
<section id="statement">
<h2>A heading that is not a question<a class="headerlink" href="#statement">¶</a></h2>
<p>Not a pair.</p>
</section>
<section id="why-&amp;-entities">
<h4>Can &amp; entities &lt;work&gt;?</h4>
<ul><li><p>one</p></li><li><p>two &amp; three</p></li></ul>
</section>
<section id="empty">
<h2>Is an empty answer kept?</h2>
</section>
</section></body></html>
"""


def test_parse_faq_pairs_structure():
    pairs = parse_faq_html(FAQ_HTML, "design")
    assert [p.section_id for p in pairs] == ["why-x", "how-nested", "why-&-entities"]
    x, nested, ent = pairs
    assert x.question == "Why does X happen?"  # no ¶, no toc link noise
    assert x.page == "design"
    assert x.url_path == "faq/design.html#why-x"
    assert x.doc_id == "design/why-x"
    assert x.answer_text == (
        "Because X is wrapped over two lines.\n\n"
        "if x:\ny()\n\n"  # <pre> keeps its lines
        "Some details\n\nDetails belong to the answer.\n\n"  # non-question subsection stays
        "Closing words of X."
    )
    assert "nested" not in x.answer_text and "On its own" not in x.answer_text
    assert "Why does X happen" not in x.answer_text  # the heading is not in the answer
    assert nested.answer_text == "On its own."
    assert ent.question == "Can & entities <work>?"
    assert ent.answer_text == "one\n\ntwo & three"


def test_parse_ignores_script_style_sidebar():
    text = " ".join(p.answer_text + p.question for p in parse_faq_html(FAQ_HTML, "d"))
    for noise in ("noise", "color", "Navigation", "sidebar", "¶", "Contents"):
        assert noise not in text


def test_urls_are_distinct_opaque_and_fragment_free():
    pairs = parse_faq_html(FAQ_HTML, "design")
    urls = {p.url for p in pairs}
    assert len(urls) == len(pairs)
    for p in pairs:
        assert "#" not in p.url and p.section_id not in p.url and p.page not in p.url


def test_faq_pairs_reads_a_tree_and_rejects_a_missing_one(tmp_path: Path):
    (tmp_path / "faq").mkdir()
    (tmp_path / "faq" / "design.html").write_text(FAQ_HTML, encoding="utf-8")
    (tmp_path / "faq" / "index.html").write_text("<html><body>no sections</body></html>")
    pairs = data.faq_pairs(tmp_path)
    assert [p.doc_id for p in pairs] == ["design/why-x", "design/how-nested",
                                         "design/why-&-entities"]  # fmt: skip
    with pytest.raises(data.EvalDataError, match="python_docs"):
        data.faq_pairs(tmp_path / "nowhere")


# ---- queries --------------------------------------------------------------------------------


def _pair(i: int, text: str) -> FaqPair:
    return FaqPair("p", f"s{i}", f"Question {i}?", text, f"faq/p.html#s{i}")


CORPUS = [
    _pair(0, "The interpreter uses reference counting and a cyclic garbage collector."),
    _pair(1, "Use the pickle module; the interpreter writes bytes with marshal too."),
    _pair(2, "Tkinter binds events; the interpreter dispatches callbacks to widgets."),
    _pair(3, "See the next question."),
]


def test_question_queries():
    qs = question_queries(CORPUS)
    assert [(q.text, q.gold) for q in qs[:1]] == [("Question 0?", "p/s0")]


def test_known_item_queries_pick_rare_content_words():
    qs = known_item_queries(CORPUS, n_terms=3, seed=0)
    by_gold = {q.gold: q.text.split() for q in qs}
    words0 = set(data.terms(CORPUS[0].answer_text))
    for words in by_gold.values():
        assert 1 <= len(words) <= 3
        for w in words:
            assert w not in data.STOPWORDS and len(w) >= data.MIN_TERM_LEN
    assert len(by_gold["p/s0"]) == 3 and set(by_gold["p/s0"]) <= words0
    # sampling among the 4 rarest: "interpreter" (in 3 of 4 answers) never qualifies
    for seed in range(20):
        rare = known_item_queries(CORPUS, n_terms=3, seed=seed, pool=4)[0].text.split()
        assert "interpreter" not in rare and len(rare) == 3
    assert by_gold["p/s3"] == ["next", "question"]  # only two candidate words
    # words keep their order of appearance in the answer
    text0 = CORPUS[0].answer_text.lower()
    pos = [text0.index(w) for w in by_gold["p/s0"]]
    assert pos == sorted(pos)


def test_known_item_queries_are_deterministic_per_seed():
    a = known_item_queries(CORPUS, n_terms=2, seed=7)
    assert a == known_item_queries(CORPUS, n_terms=2, seed=7)
    assert all(len(q.text.split()) <= 2 for q in a)
    with pytest.raises(ValueError):
        known_item_queries(CORPUS, n_terms=0)


# ---- fetching -------------------------------------------------------------------------------


def test_python_docs_is_instant_when_cached(tmp_path: Path, monkeypatch):
    root = tmp_path / data.PACKAGE / data.HTML_SUBDIR
    (root / "faq").mkdir(parents=True)
    (tmp_path / data.PACKAGE / ".complete").write_text("x.deb\n")

    def no_subprocess(*a, **k):
        raise AssertionError("a cached tree must not run apt-get")

    monkeypatch.setattr(data.subprocess, "run", no_subprocess)
    assert data.python_docs(tmp_path) == root


def test_python_docs_says_what_to_install_without_apt(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(data.shutil, "which", lambda tool: None)
    with pytest.raises(data.EvalDataError, match="apt-get.*python3.11-doc"):
        data.python_docs(tmp_path)


def test_python_docs_reports_a_failing_apt_get(tmp_path: Path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("apt-get", "dpkg-deb"):  # stand-ins that fail like apt without sources
        script = bin_dir / tool
        script.write_text("#!/bin/sh\necho 'E: Unable to locate package' >&2\nexit 100\n")
        script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    with pytest.raises(data.EvalDataError, match="(?s)Unable to locate.*apt-get install"):
        data.python_docs(tmp_path / "cache")
    assert not (tmp_path / "cache" / data.PACKAGE).exists()  # nothing half-done left


def test_default_cache_honours_env(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("REWIND_EVAL_CACHE", str(tmp_path))
    assert data.default_cache() == tmp_path
    monkeypatch.delenv("REWIND_EVAL_CACHE")
    assert data.default_cache().parts[-2:] == (".cache", "eval-data")


# ---- docs/benchmarks.md sections ------------------------------------------------------------


def test_update_section_appends_replaces_and_keeps_others(tmp_path: Path):
    doc = tmp_path / "benchmarks.md"
    report.update_section("alpha", "A1", doc)
    report.update_section("beta", "B1", doc)
    report.update_section("alpha", "A2\nmore", doc)
    text = doc.read_text()
    assert text.startswith("# Benchmarks\n")
    assert "<!-- bench:alpha -->\nA2\nmore\n<!-- /bench:alpha -->" in text
    assert "<!-- bench:beta -->\nB1\n<!-- /bench:beta -->" in text
    assert "A1" not in text
    assert text.index("bench:alpha") < text.index("bench:beta")  # stays in place
    assert not list(tmp_path.glob("*.tmp"))


def test_update_section_refuses_broken_markers_and_bad_names(tmp_path: Path):
    doc = tmp_path / "b.md"
    doc.write_text("# B\n<!-- bench:x -->\nno end\n")
    with pytest.raises(ValueError, match="unbalanced"):
        report.update_section("x", "new", doc)
    assert doc.read_text() == "# B\n<!-- bench:x -->\nno end\n"  # untouched
    with pytest.raises(ValueError):
        report.update_section("bad name -->", "x", doc)


def test_table_and_machine():
    t = report.table(["m", "a"], [["x", "1.000"]])
    assert t.splitlines() == ["| m | a |", "|:---|---:|", "| x | 1.000 |"]
    assert "cores" in report.machine() and "RAM" in report.machine()


# ---- the recommended fusion -----------------------------------------------------------------


def ids(ranked):
    return [i for i, _ in ranked]


def test_fuse_without_bm25_is_the_dense_order():
    dense = {"a": 0.2, "b": 0.7, "c": 0.5}
    assert ids(fuse(dense, {})) == ["b", "c", "a"]


def test_fuse_without_dense_is_the_bm25_order():
    assert ids(fuse({}, {"a": 3.0, "b": 9.0, "c": 1.0})) == ["b", "a", "c"]
    assert ids(fuse({}, {"a": 2.0, "b": 2.0})) == ["a", "b"]  # flat BM25: still returned


def test_fuse_flat_bm25_leaves_a_confident_cosine_in_charge():
    dense = {"a": 0.80, "b": 0.60, "c": 0.55}
    bm25 = {"c": 10.0, "b": 9.9, "a": 9.8}  # gap 1%: no decisive keyword match
    assert ids(fuse(dense, bm25))[0] == "a"


def test_fuse_decisive_bm25_wins_over_a_weak_cosine():
    dense = {"a": 0.30, "b": 0.28, "c": 0.27}
    bm25 = {"c": 12.0, "a": 3.0}  # one page far ahead: remembered rare words
    assert ids(fuse(dense, bm25))[0] == "c"


def test_fuse_runner_up_is_taken_from_another_page():
    dense = {"a1": 0.50, "b": 0.49, "c": 0.35}
    bm25 = {"c": 10.0, "c2": 9.5, "a1": 2.0}  # c and c2: two passages of page C
    page_of = {"a1": "A", "b": "B", "c": "C", "c2": "C"}
    assert ids(fuse(dense, bm25, page_of=page_of))[0] == "c"  # gap .8 across pages
    assert ids(fuse(dense, bm25))[0] != "c"  # passage gap .05: BM25 not decisive


def test_fuse_scores_are_bounded_and_ties_are_deterministic():
    dense = {"a": 0.5, "b": 0.5}
    bm25 = {"c": 4.0}
    out = fuse(dense, bm25, FuseParams(keyword_weight=100.0))
    assert ids(out)[0] == "c"
    assert all(0.0 <= s <= 1.0 for _, s in out)
    assert ids(out) == ids(fuse(dense, bm25, FuseParams(keyword_weight=100.0)))


def test_chunk_respects_the_word_limit_and_loses_nothing():
    text = "\n\n".join(["word " * 150, "tail " * 30, "long " * 450])
    parts = chunk(text, 200)
    assert all(len(p.split()) <= 200 for p in parts)
    assert sum(len(p.split()) for p in parts) == 630
