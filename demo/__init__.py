"""Rewind in a real browser: the harness shared by the browser demo and the browser tests."""
