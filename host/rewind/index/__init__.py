"""Index: a profile's memory on disk, in three rooms, each depending only on those before it.

- `crypto/`: the primitives of encryption at rest (the field cipher, where keys live);
- `store/`: the truth, SQLite (pages, visits, passages, vectors, the schema, encryption
  of a store, salvage of a damaged one, the page filter every read takes);
- `derived/`: what is rebuilt from the store (the tantivy BM25 index with its language
  analysis, the dense vector snapshot), following its change sequence.

Which model makes the vectors is `rewind.models`' business; nothing here imports it. Two
modules at this level are the profile's (retention, the embedding job's record in the store).
This package must never hold a fact the store does not, nor know about search, answers or
the browser.
"""
