"""The search modes, defined here only: what a search may ask of retrieval.

hybrid: by meaning and by words, fused (the default); semantic: by meaning only; keyword:
by words only (search/retrieve.py runs them). The host's `search` request, the CLI's
`--mode`, the MCP tool's `mode` and the retrieval check take them from here; the
extension's list (lib/settings.js SEARCH_MODES, the side panel's radio buttons) is checked
against it by tests/search/test_search_modes.py. On the foundation floor, so that the CLI
can name them without loading search.
"""

from __future__ import annotations

from typing import Literal, get_args

Mode = Literal["hybrid", "semantic", "keyword"]
MODES: tuple[str, ...] = get_args(Mode)
DEFAULT_MODE: Mode = "hybrid"
