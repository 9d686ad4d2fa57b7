"""Capture rules: which pages are never recorded, and what is masked in those that are."""
