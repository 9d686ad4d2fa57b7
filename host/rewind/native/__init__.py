"""Native messaging: the browser's door. Frames (framing), checked requests (requests,
schema), reply envelopes (replies), one handler per request type (handlers) on lanes
(host); who may call (identity), registration with each browser (browsers, register),
a browser stand-in for debugging (client), and PROTOCOL.md's tables (doc)."""
