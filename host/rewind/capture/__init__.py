"""Capture: what comes in, and what never does. A URL canonicalised (urls), a file's text
extracted (extract), text cut into passages (chunker), a page checked, bounded and hashed
into store records (ingest); the sensitive-page policy (policy, weburl, policy.json),
personal data masked (redact) and account pages refused by their text (sensitive).
Nothing here writes: the engine stores what ingest prepares."""
