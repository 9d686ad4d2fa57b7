"""The store's SQLite schema, as numbered migrations (`SCHEMA_VERSION` is the last).

Migrations run in order inside one transaction each (store.py); never edit a released
one, add the next. Vectors live in their own table, one row per passage vector with its
model id and dimension, never inline in a page.
This module must never run SQL itself: it is the schema as data.
"""

from __future__ import annotations

SCHEMA_VERSION = 3

# Migrations run in order inside one transaction each; never edit a released one.
MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE pages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        url TEXT NOT NULL UNIQUE,
        domain TEXT NOT NULL,
        title TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        source TEXT NOT NULL,            -- browser | file | ingest
        metadata TEXT NOT NULL,          -- JSON object
        first_visit REAL NOT NULL,
        last_visit REAL NOT NULL,
        visit_count INTEGER NOT NULL,
        dwell_s REAL NOT NULL,
        indexed_at REAL NOT NULL,
        seq INTEGER NOT NULL
    );
    CREATE INDEX pages_domain ON pages(domain);
    CREATE INDEX pages_last_visit ON pages(last_visit);
    CREATE INDEX pages_seq ON pages(seq);
    CREATE TABLE passages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        text TEXT NOT NULL,
        span_start INTEGER NOT NULL,
        span_end INTEGER NOT NULL,
        quality REAL NOT NULL,
        is_title INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX passages_page ON passages(page_id);
    -- vectors apart: one row per passage vector, never inline in a page
    CREATE TABLE vectors (
        passage_id INTEGER PRIMARY KEY REFERENCES passages(id) ON DELETE CASCADE,
        model_id TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL
    );
    CREATE TABLE tombstones (page_id INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
    CREATE INDEX tombstones_seq ON tombstones(seq);
    """,
    # Vectors written from here on are float16 (records.encode_vector); older rows stay
    # float32 and are read by their length. A Rewind that knows only schema 1 would misread
    # them, so the version goes up and such a Rewind refuses the store with a clear error.
    # store_id: derived files (the vector snapshot) name the store they were made from, so
    # a store replaced under them is never mistaken for the one they reflect.
    2: """
    INSERT OR REPLACE INTO meta(key, value) VALUES ('vector_dtype', 'float16');
    INSERT OR IGNORE INTO meta(key, value) VALUES ('store_id', lower(hex(randomblob(8))))
    """,
    # Two models' vectors side by side while a re-embedding job runs (profile/embedding_job.py), and
    # several vectors for a passage longer than its model's window (models/pieces.py): a
    # vector is keyed by (passage, model, piece). SQLite cannot change a primary key in
    # place, so the table is copied. A Rewind that knows only schema 2 would read a
    # passage's pieces as duplicates: the version goes up.
    3: """
    CREATE TABLE vectors3 (
        passage_id INTEGER NOT NULL REFERENCES passages(id) ON DELETE CASCADE,
        model_id TEXT NOT NULL,
        piece INTEGER NOT NULL DEFAULT 0,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (passage_id, model_id, piece)
    );
    INSERT INTO vectors3(passage_id, model_id, piece, dim, vector)
        SELECT passage_id, model_id, 0, dim, vector FROM vectors;
    DROP TABLE vectors;
    ALTER TABLE vectors3 RENAME TO vectors;
    CREATE INDEX vectors_model ON vectors(model_id, passage_id)
    """,
}
