"""The store: the source of truth, in SQLite (WAL). Pages, visits, passages and their
vectors (store.py, records.py, vector_rows.py), the schema as numbered migrations
(migrations.py), which pages a read may see (page_filter.py), whether a store is encrypted
and with which key (at_rest.py), and what can be saved of a damaged one (salvage.py).

Every write bumps one change sequence; the derived indexes follow it. This package must
never import the derived indexes or a model: it holds nothing that comes from them.
"""
