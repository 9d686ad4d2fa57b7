import time

import pytest
from rewind.config import Settings
from rewind.index.derived.text_index import TextIndex, domain_suffixes
from rewind.index.store.records import PageRecord, PassageRecord
from rewind.index.store.store import Store


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


def test_writer_is_kept_between_writes_and_released_when_idle(tmp_path, monkeypatch):
    from rewind.index.derived import text_index

    # Long enough that a loaded machine does not let the writer go between the second
    # write and the lock check below (0.2 s did, about one run in four at load 14).
    monkeypatch.setattr(text_index, "IDLE_RELEASE_S", 2.0)
    store = Store(tmp_path / "rewind.db")
    released = []
    index = TextIndex(tmp_path / "text", Settings(), on_released=lambda: released.append(1))
    add(store, "https://a.org/1", "a.org", "One", ["first words"])
    assert index.catch_up(store) == 1
    add(store, "https://a.org/2", "a.org", "Two", ["second words"])
    assert index.catch_up(store) == 1  # the same writer: no wait for merges between writes
    with pytest.raises(ValueError, match="LockBusy"):
        index.index.writer()  # tantivy's lock is still ours
    committed_through = index.index
    deadline = time.time() + 10
    while not released and time.time() < deadline:
        time.sleep(0.05)
    assert released  # idle: let go (its merges finished), and the engine's hook ran
    # A new handle on the folder: the old one's bookkeeping of every commit goes with it.
    assert index.index is not committed_through
    index.index.writer()  # the lock is free again
    assert len(index.search("words", 5)) == 2


def test_a_writer_never_idle_is_let_go_after_its_commits_and_nothing_is_lost(
        tmp_path, monkeypatch):
    from rewind.index.derived import text_index

    monkeypatch.setattr(text_index, "IDLE_RELEASE_S", 60.0)  # never idle in this test
    monkeypatch.setattr(text_index, "WRITER_MAX_COMMITS", 3)
    store = Store(tmp_path / "rewind.db")
    released = []
    index = TextIndex(tmp_path / "text", Settings(), on_released=lambda: (
        released.append(1), index.catch_up(store)))
    for i in range(3):
        add(store, f"https://a.org/{i}", "a.org", f"Page {i}", [f"words of page {i}"])
        assert index.catch_up(store) == 1
    deadline = time.time() + 10
    while not released and time.time() < deadline:
        time.sleep(0.05)
    assert released  # worn: let go at once (its merges finished), not after 60 s idle
    for i in range(3, 5):  # a new writer takes the next pages (or the release's catch-up)
        add(store, f"https://a.org/{i}", "a.org", f"Page {i}", [f"words of page {i}"])
        index.catch_up(store)
    deadline = time.time() + 10
    while index.applied_seq() < store.seq() and time.time() < deadline:
        time.sleep(0.05)
    index.reload()
    assert len(index.search("words", 10)) == 5
    index.close()


def test_write_waits_in_the_store_while_another_writer_holds_tantivy(tmp_path, monkeypatch):
    from rewind.index.derived import text_index

    monkeypatch.setattr(text_index, "IDLE_RELEASE_S", 0.2)
    store = Store(tmp_path / "rewind.db")
    caught = []
    index = TextIndex(tmp_path / "text", Settings(),
                      on_released=lambda: caught.append(index.catch_up(store)))
    other = TextIndex(tmp_path / "text", Settings())  # another process's, merging
    add(store, "https://a.org/1", "a.org", "One", ["kept words"])
    assert other.catch_up(store) == 1
    add(store, "https://a.org/2", "a.org", "Two", ["waiting words"])
    assert index.catch_up(store) is None  # not blocked: left for later
    assert index.applied_seq() < store.seq()
    other.close()  # its merges done, the lock free
    deadline = time.time() + 10
    while index.applied_seq() < store.seq() and time.time() < deadline:
        time.sleep(0.05)
    assert index.applied_seq() == store.seq()
    index.reload()
    assert len(index.search("words", 5)) == 2
    index.close()


@pytest.mark.parametrize("keyed", [False, True])
def test_the_flat_query_scores_as_the_parsers_nested_one(tmp_path, keyed):
    """parse() builds one OR of term queries (block-max WAND can prune it); the query
    parser's nested one (each term's fields, then the words, then the URL) is the
    reference: the same passages, the same scores, for words, phrases, URLs and syntax."""
    import tantivy
    from rewind.index.crypto.cipher import FieldCipher

    store = Store(tmp_path / "rewind.db")
    index = TextIndex(tmp_path / "text", Settings(),
                      cipher=FieldCipher(b"k" * 32, "test") if keyed else None)
    pages = [("https://docs.python.org/3/library/asyncio.html", "docs.python.org",
              "asyncio: event loops", ["Running an event loop in a Python script",
                                       "Tasks wrap coroutines; the loop runs the tasks"]),
             ("https://example.com/unix/scripts", "example.com", "Executable scripts",
              ["Make a Python script executable on Unix with chmod and a shebang line"]),
             ("https://b.org/loops", "b.org", "Loop pedals",
              ["A loop pedal records a phrase and plays it back in a loop"])]
    for url, domain, title, texts in pages:
        add(store, url, domain, title, texts)
    index.catch_up(store)

    def nested(text):
        words, phrases = index._query_terms(text)
        terms = " ".join([" ".join(words), *phrases])
        w, _ = index.index.parse_query_lenient(terms, ["text", "title"],
                                               field_boosts=index.boosts)
        u, _ = index.index.parse_query_lenient(text, ["url"], field_boosts=index.boosts)
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, w),
                                            (tantivy.Occur.Should, u)])

    searcher = index.searcher()
    for text in ["python script loop", "How do I make a Python script executable on Unix?",
                 '"event loop" python', "docs.python.org asyncio", "loop AND pedal",
                 "-python loop", "asyncio python python", "x" * 45 + " loop"]:
        got = [(a.doc, round(s, 4)) for s, a in searcher.search(index.parse(text), 10).hits]
        want = [(a.doc, round(s, 4)) for s, a in searcher.search(nested(text), 10).hits]
        assert got and got == want, text
    index.close()
    store.close()
