"""index/store/page_filter.py: one filter, three readers that must agree (SQL, tantivy, Python)."""

import pytest
from rewind.config import Settings
from rewind.index.derived.text_index import TextIndex
from rewind.index.store import page_filter
from rewind.index.store.page_filter import PageFilter, site_key
from rewind.index.store.records import PageRecord, PassageRecord
from rewind.index.store.store import Store

T0 = 1_700_000_000.0
DAY = 86400.0
# (url, domain, last visit): sites nested and not, visits spread over ten days, one visit
# half a second after a whole second (the integer `visited` field of the text index).
PAGES = [
    ("https://docs.python.org/a", "docs.python.org", T0),
    ("https://python.org/b", "python.org", T0 + DAY),
    ("https://wiki.python.org/c", "wiki.python.org", T0 + 2 * DAY + 0.5),
    ("https://bank.example/d", "bank.example", T0 + 3 * DAY),
    ("https://my.bank.example/e", "my.bank.example", T0 + 4 * DAY),
    ("https://notpython.org/f", "notpython.org", T0 + 5 * DAY),
    ("https://news.example/g", "news.example", T0 + 9 * DAY),
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("filter")
    store = Store(tmp / "rewind.db")
    index = TextIndex(tmp / "text", Settings())
    ids = {}
    for url, domain, when in PAGES:
        rec = PageRecord(url=url, domain=domain, title="marmalade", content_hash=url,
                         source="browser", first_visit=when, last_visit=when, visit_count=1,
                         dwell_s=1)
        ids[url], _ = store.upsert_page(rec, [PassageRecord("seville orange marmalade", 0,
                                                            (0, 24))], None, None)
    index.catch_up(store)
    yield store, index, ids
    store.close()
    index.close()


FILTERS = [
    PageFilter(),
    PageFilter(domain="python.org"),
    PageFilter(sites=("python.org",)),
    PageFilter(sites=("docs.python.org", "bank.example")),
    PageFilter(not_sites=("bank.example",)),
    PageFilter(sites=("python.org",), not_sites=("wiki.python.org",)),
    PageFilter(since=T0 + 2 * DAY),
    PageFilter(since=T0 + 2 * DAY + 0.5),  # exactly a visit with a fraction
    PageFilter(since=T0 + 2 * DAY + 0.7),  # just after it: out
    PageFilter(until=T0 + 2 * DAY + 0.5),  # just before it... it is out (until: before)
    PageFilter(until=T0 + 2 * DAY + 0.7),
    PageFilter(since=T0 + DAY, until=T0 + 5 * DAY, not_sites=("my.bank.example",)),
    PageFilter(domain="python.org", sites=("bank.example",)),  # nothing is on both
]


@pytest.mark.parametrize("f", FILTERS, ids=lambda f: repr(f)[10:60])
def test_sql_and_admits_agree_and_tantivy_never_admits_more(indexed, f):
    store, index, ids = indexed
    by_id = store.pages_by_ids(ids.values())
    expected = {i for i, p in by_id.items() if f.admits(p)}
    assert set(page_filter.page_ids(store, f)) == expected
    keyword = {h.page_id for h in index.search("marmalade", 50, where=f)}
    # whole seconds in the index: a bound inside a second may leave one page out, never in
    assert keyword <= expected
    assert len(expected - keyword) <= 1
    if f.since is None and f.until is None or f.since == T0 + 2 * DAY:
        assert keyword == expected


def test_a_scope_narrows_a_search_filter_both_ways():
    scope = PageFilter(sites=("python.org",), not_sites=("wiki.python.org",),
                       since=T0 + DAY)
    search = PageFilter(domain="docs.python.org", since=T0, until=T0 + 3 * DAY)
    both = search.narrowed(scope)
    assert both == PageFilter(domain="docs.python.org", sites=("python.org",),
                              not_sites=("wiki.python.org",), since=T0 + DAY,
                              until=T0 + 3 * DAY)
    assert scope.narrowed(search) == both
    # two site lists: only the nested pairs, the narrower of each
    a = PageFilter(sites=("python.org", "bank.example"))
    b = PageFilter(sites=("docs.python.org", "news.example"))
    assert a.narrowed(b).sites == ("docs.python.org",)
    assert PageFilter(sites=("bank.example",)).narrowed(PageFilter(sites=("news.example",))
                                                        ).sites == ("-",)


def test_recent_pages_newest_first_within_the_filter(indexed):
    store, _index, _ids = indexed
    got = page_filter.recent_pages(store, PageFilter(not_sites=("bank.example",)), 3)
    assert [p.url for p in got] == ["https://news.example/g", "https://notpython.org/f",
                                    "https://wiki.python.org/c"]


@pytest.mark.parametrize(("given", "key"), [("WWW.Example.COM", "example.com"),
                                            ("docs.python.org.", "docs.python.org")])
def test_site_key(given, key):
    assert site_key(given) == key


@pytest.mark.parametrize("bad", ["", "a b.com", "https://x.org/", "%.org", "x_y.org",
                                 "a" * 254])
def test_site_key_refuses_what_is_not_a_site(bad):
    with pytest.raises(ValueError):
        site_key(bad)


def test_like_wildcards_in_a_site_are_not_wildcards(tmp_path):
    """"_" and "%" match any character in LIKE: escaped, a filter never admits a page
    whose site only looks like the one named."""
    store = Store(tmp_path / "rewind.db")
    rec = PageRecord(url="https://my.bankxexample/", domain="my.bankxexample", title="t",
                     content_hash="h", source="browser", first_visit=T0, last_visit=T0,
                     visit_count=1, dwell_s=1)
    pid, _ = store.upsert_page(rec, [], None, None)
    assert page_filter.page_ids(store, PageFilter(sites=("bank_example",))) == []
    assert page_filter.page_ids(store, PageFilter(sites=("%",))) == []
    assert page_filter.page_ids(store, PageFilter(not_sites=("bank_example",))) == [pid]
    store.close()
