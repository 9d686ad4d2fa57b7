"""A damaged text index is found, never searched silently, and rebuilt from the store:
tantivy's own files (integrity.py), then the whole story through the real `rewind` CLI on
real pages (the Python FAQ), with one byte flipped and a quarter cut off every file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rewind.index.derived import integrity
from support.cli_runner import rewind

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def faq_profile(tmp_path_factory, python_docs, model_dir) -> Path:
    data = tmp_path_factory.mktemp("integrity") / "data"
    rewind(data, "index", str(python_docs / "faq"), "--base-url", "https://docs.python.org/3/")
    return data


def segment_files(data: Path) -> list[Path]:
    files = integrity.segment_files(data / "text_index")
    assert isinstance(files, list) and files
    return [f for f in files if f.exists()]


def test_a_whole_index_passes_and_is_remembered(faq_profile):
    index = faq_profile / "text_index"
    assert integrity.problems(index, full=True) == []
    checked = json.loads((index / integrity.CHECKED).read_text())
    assert set(checked) == {f.name for f in segment_files(faq_profile)}


@pytest.mark.parametrize("harm, says", [
    (lambda b: b[:10] + bytes([b[10] ^ 0x40]) + b[11:], "checksum does not match"),
    (lambda b: b[: len(b) * 3 // 4], "lost its checksum"),
    (lambda b: b"", "cut short"),
])
def test_each_kind_of_damage_is_named(faq_profile, tmp_path, harm, says):
    copy = tmp_path / "text_index"
    copy.mkdir()
    for f in (faq_profile / "text_index").iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    victim = next(f for f in sorted(copy.iterdir()) if f.suffix == ".term")
    victim.write_bytes(harm(victim.read_bytes()))
    found = integrity.problems(copy)
    assert len(found) == 1 and victim.name in found[0] and says in found[0], found
    victim.unlink()
    assert integrity.problems(copy) == [f"{victim.name} is missing"]
    (copy / "meta.json").write_text("{not json")
    assert integrity.problems(copy) == ["meta.json is damaged"]


def test_damaged_index_is_never_searched_silently_and_rebuilds_itself(faq_profile):
    for f in segment_files(faq_profile):  # the damage: a byte flipped, a quarter cut
        b = bytearray(f.read_bytes())
        b[len(b) // 2] ^= 0xFF
        f.write_bytes(bytes(b[: len(b) * 3 // 4]))

    keyword = rewind(faq_profile, "search", "Windows", "--mode", "keyword", check=False)
    assert keyword.returncode == 1, keyword.stdout
    assert "keyword index cannot be used" in keyword.stderr
    assert "rewind reindex" in keyword.stderr and "No matches" not in keyword.stdout
    hybrid = rewind(faq_profile, "search", "How do I run a Python program under Windows?",
                    "--json")
    found = json.loads(hybrid.stdout)
    assert found["results"] and "by meaning only" in found["notice"]

    doctor = rewind(faq_profile, "doctor", check=False)  # a writer: it rebuilds at open
    assert "rebuilt from the store just now: the text index (12 files damaged" in doctor.stdout
    assert "ok    text index: 536 passages indexed, 536 stored" in doctor.stdout, doctor.stdout
    audit = [json.loads(line) for line in (faq_profile / "audit.log").read_text().splitlines()]
    assert any(e["event"] == "rebuilt" and e["part"] == "text index" for e in audit)
    again = rewind(faq_profile, "search", "Windows", "--mode", "keyword", "--json")
    assert json.loads(again.stdout)["results"]
    assert integrity.problems(faq_profile / "text_index", full=True) == []
