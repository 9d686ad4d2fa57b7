"""Index: the store and what is derived from it. SQLite is the source of truth (store,
records, migrations); the tantivy BM25 index (text_index) and the dense vectors (vectors,
made by the embedder) follow its change sequence and can be rebuilt from it. Models are
specs as data (models, models.json), installed from packages or pulled from where they are
published (or a mirror)."""
