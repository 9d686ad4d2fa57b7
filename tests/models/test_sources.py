"""Where model files come from (models/sources.py): the published addresses models.json
names, a mirror the person sets, and the test-only stand-in for the model host."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rewind.errors import Code, RewindError
from rewind.models import sources, specs
from rewind.models.specs import FileSpec, LlmSpec


def spec() -> LlmSpec:
    return LlmSpec("tiny", "a test model", 512, 0.2, 16,
                   (FileSpec("weights.bin", None, download="org/tiny weights.bin"),))


def test_without_a_mirror_the_published_addresses_are_used(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(sources.MIRROR_ENV, raising=False)
    monkeypatch.delenv(sources.TEST_HOST_ENV, raising=False)
    assert sources.mirror_setting(None) is None
    qwen = specs.llm_spec("qwen2.5-1.5b-instruct-q4_k_m")
    (f,) = qwen.files
    assert sources.source_url(None, qwen, f) == f.url == (
        "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/"
        "qwen2.5-1.5b-instruct-q4_k_m.gguf")
    assert sources.source_note(None) is None
    monkeypatch.setenv(sources.MIRROR_ENV, "  http://127.0.0.1:9/{repo}/{path} ")
    assert sources.mirror_setting(None) == "http://127.0.0.1:9/{repo}/{path}"
    assert sources.mirror_setting("http://127.0.0.1:8/m") == "http://127.0.0.1:8/m"  # wins
    assert sources.source_url("http://127.0.0.1:8/m", qwen, f) == (
        "http://127.0.0.1:8/m/Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf")


def test_the_test_host_keeps_the_published_path(monkeypatch: pytest.MonkeyPatch):
    qwen = specs.llm_spec("qwen2.5-1.5b-instruct-q4_k_m")
    (f,) = qwen.files
    monkeypatch.setenv(sources.TEST_HOST_ENV, "http://127.0.0.1:8123/")
    assert sources.source_url(None, qwen, f) == (
        "http://127.0.0.1:8123/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/"
        "qwen2.5-1.5b-instruct-q4_k_m.gguf")
    assert "tests only" in (sources.source_note(None) or "")
    for bad in ("127.0.0.1:8123", "http://127.0.0.1:8123/prefix", "file:///tmp"):
        monkeypatch.setenv(sources.TEST_HOST_ENV, bad)
        with pytest.raises(RewindError) as err:
            sources.source_url(None, qwen, f)
        assert err.value.code is Code.BAD_REQUEST


def test_every_download_in_models_json_names_its_published_address():
    known = specs.load_specs()
    for spec in [*known.embedding.values(), *known.llm.values()]:
        for f in spec.files:
            if f.download:
                repo, _, path = f.download.partition(" ")
                assert f.url == f"https://huggingface.co/{repo}/resolve/main/{path}", spec.name
                assert f.sha256 and f.bytes, spec.name  # pinned: a download is checked
            elif f.made_from:  # converted at install from another of its files
                assert f.made_from in {g.name for g in spec.files} and f.url is None, spec.name
            else:
                assert f.package and f.url is None, spec.name


def test_a_catalog_whose_url_is_not_its_download_is_refused(tmp_path: Path):
    bad = tmp_path / "models.json"
    bad.write_text(json.dumps({"embedding": {}, "llm": {"tiny": {
        "description": "", "n_ctx": 512, "temperature": 0.2, "max_answer_tokens": 16,
        "files": {"m.gguf": {"sha256": "0" * 64, "download": "org/tiny m.gguf",
                             "url": "https://models.example/org/other/m.gguf"}}}}}))
    with pytest.raises(ValueError, match="needs an https url ending in its download path"):
        specs.load_specs(bad)


@pytest.mark.parametrize(
    "bad",
    [
        "file:///tmp/models/{repo}/{path}",
        "ftp://127.0.0.1/{repo}/{path}",
        "127.0.0.1:8000/{repo}/{path}",
        "http://",
        "https://{repo}.example/{path}",  # the host would come from models.json
    ],
)
def test_mirrors_that_are_not_an_http_host_are_refused(bad: str):
    with pytest.raises(RewindError) as err:
        sources.mirror_setting(bad)
    assert err.value.code is Code.BAD_REQUEST


def test_file_urls_from_a_template_or_a_base_url():
    sp = spec()
    f = FileSpec("w b.bin", None, download="org/tiny dir/w b.bin")
    assert sources.file_url("http://h/{repo}/resolve/main/{path}", sp, f) == (
        "http://h/org/tiny/resolve/main/dir/w%20b.bin"
    )
    assert sources.file_url("http://h/m/{model}/{file}", sp, f) == "http://h/m/tiny/w%20b.bin"
    assert sources.file_url("http://h/base/", sp, f) == "http://h/base/org/tiny/dir/w%20b.bin"
    for bad in ("http://h/{rep}/{path}", "http://h/{0}", "http://h/{repo.x}", "http://h/{path[a]}"):
        with pytest.raises(RewindError) as err:
            sources.file_url(bad, sp, f)
        assert err.value.code is Code.BAD_REQUEST and "unknown field" in err.value.message
