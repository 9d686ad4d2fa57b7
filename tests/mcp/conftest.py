"""Fixtures of the MCP server's tests (mcp_history.py builds the history)."""

from __future__ import annotations

import pytest
from mcp_history import History, index_docs


@pytest.fixture(scope="module")
def docs_history(tmp_path_factory, python_docs, embedder, model_dir) -> History:
    return index_docs(tmp_path_factory.mktemp("mcp") / "profile", python_docs, embedder,
                      model_dir)
