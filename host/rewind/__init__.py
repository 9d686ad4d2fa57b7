"""Rewind: a private, local memory of what you read on the web.

The host package, by stage of the data flow (docs/architecture.md):
capture (what comes in) -> index (the store and its derived indexes) -> search
(one retrieval path) -> answers (context, the language model, citations); native
is the browser's door, cli the person's; `engine.Rewind` is one profile, the stages
together.
"""

__version__ = "0.6.0"
