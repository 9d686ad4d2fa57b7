"""Rewind: a private, local memory of what you read on the web.

The host package. Data flows ingest -> store -> (text_index, vectors) -> search;
`engine.Rewind` ties the stages together for the CLI and the native host.
"""

__version__ = "0.2.0"
