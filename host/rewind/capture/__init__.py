"""Capture: what comes in. A URL canonicalised (urls), a file's text extracted (extract),
text cut into passages (chunker), a page checked, bounded and hashed into store records
(ingest). Nothing here writes: the engine stores what ingest prepares."""
