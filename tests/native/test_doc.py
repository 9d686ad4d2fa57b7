"""PROTOCOL.md against the code: its tables of limits and settings are what the code does."""

from rewind.native import doc


def test_protocol_md_tables_are_the_codes():
    text = doc.PROTOCOL_MD.read_text(encoding="utf-8")
    assert "<!-- generated: limits -->" in text and "<!-- generated: settings -->" in text
    assert doc.render(text) == text, (
        "PROTOCOL.md disagrees with Settings: run `python -m rewind.native.doc` and review")


def test_a_changed_setting_shows_in_the_doc():
    from dataclasses import replace

    from rewind.config import Settings

    text = doc.PROTOCOL_MD.read_text(encoding="utf-8")
    changed = doc.render(text, replace(Settings(), max_url_chars=4096))
    assert changed != text and "| 4,096 characters |" in changed
