import time

import pytest
from rewind.config import Settings
from rewind.index.records import PageRecord, PassageRecord
from rewind.index.store import Store
from rewind.index.text_index import TextIndex, domain_suffixes


@pytest.fixture
def pair(tmp_path):
    store = Store(tmp_path / "rewind.db")
    index = TextIndex(tmp_path / "text", Settings())
    yield store, index
    store.close()


def add(store, url, domain, title, texts, when=None):
    when = when or time.time()
    rec = PageRecord(url=url, domain=domain, title=title, content_hash=url, source="browser",
                     first_visit=when, last_visit=when, visit_count=1, dwell_s=1)
    return store.upsert_page(rec, [PassageRecord(t, i, (0, len(t))) for i, t in
                                   enumerate(texts)], None, None)


def test_catch_up_applies_writes_and_deletes(pair):
    store, index = pair
    pid, _ = add(store, "https://a.org/1", "a.org", "Graph pruning",
                 ["RNG-pruning keeps HNSW sparse", "unrelated onions"])
    assert index.catch_up(store) == 1 and index.applied_seq() == store.seq()
    hits = index.search("RNG-pruning", 5)
    assert hits[0].page_id == pid
    store.delete_pages([pid])
    index.catch_up(store)
    assert index.search("pruning", 5) == [] and index.passage_ids() == set()


def test_stemming_stopwords_and_title_boost(pair):
    store, index = pair
    add(store, "https://a.org/1", "a.org", "Cooking", ["the pruned trees were pruning"])
    p2, _ = add(store, "https://b.org/2", "b.org", "Pruning guide", ["a guide for gardens"])
    index.catch_up(store)
    assert {h.page_id for h in index.search("prune", 5)} >= {p2}
    assert index.search("prune", 5)[0].page_id == p2  # title boost
    assert index.search("the", 5) == []  # stop word


def test_filters_by_domain_suffix_and_time(pair):
    store, index = pair
    old = time.time() - 30 * 86400
    p1, _ = add(store, "https://docs.python.org/x", "docs.python.org", "t", ["asyncio loops"], old)
    p2, _ = add(store, "https://example.com/y", "example.com", "t", ["asyncio tasks"])
    index.catch_up(store)
    assert {h.page_id for h in index.search("asyncio", 5, domain="python.org")} == {p1}
    assert {h.page_id for h in index.search("asyncio", 5, since=time.time() - 86400)} == {p2}
    assert {h.page_id for h in index.search("asyncio", 5, until=time.time() - 86400)} == {p1}


def test_user_syntax_never_raises(pair):
    store, index = pair
    add(store, "https://a.org/1", "a.org", "t", ["quote test words here"])
    index.catch_up(store)
    for q in ['"unclosed', "AND OR", "title:", "(((", "*", "a:b:c", "-", "\\"]:
        index.search(q, 5)


def test_highlights_are_character_ranges(pair):
    store, index = pair
    text = "Café naïve — the pruning step removes edges; pruning again."
    add(store, "https://a.org/1", "a.org", "t", [text])
    index.catch_up(store)
    ranges = index.highlights("pruning", text)
    assert [text[a:b] for a, b in ranges] == ["pruning", "pruning"]


def test_rebuild_and_damaged_index_recovers(pair, tmp_path):
    store, index = pair
    add(store, "https://a.org/1", "a.org", "t", ["recoverable words"])
    index.catch_up(store)
    for f in (tmp_path / "text").glob("meta.json"):
        f.write_text("{ not json")
    fresh = TextIndex(tmp_path / "text", Settings())  # derived data: started again
    fresh.catch_up(store)
    assert len(fresh.search("recoverable", 5)) == 1
    fresh.rebuild(store)
    assert fresh.num_docs() == 1


def test_domain_suffixes():
    assert domain_suffixes("docs.python.org") == ["docs.python.org", "python.org"]
    assert domain_suffixes("localhost") == ["localhost"]
    assert domain_suffixes("") == []
