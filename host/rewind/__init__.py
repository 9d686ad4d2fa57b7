"""Rewind: a private, local memory of what you read on the web.

The host package, by stage of the data flow (docs/architecture.md):
capture (what comes in) -> index (the store and its derived indexes) -> search
(one retrieval path) -> answers (context, the language model, citations); native
is the browser's door, cli the person's, mcp an AI tool's; `profile.engine.Rewind` is one
profile, the stages together; config, errors, text and the other loose modules are the
foundation floor under all of them (checks is the doctor, above the profile).
"""

__version__ = "0.6.0"
