"""The `rewind` command as a person or a script runs it: real process, real model."""

import json

import pytest
from support.cli_runner import rewind

ARTICLE = """<html><head><title>Graph pruning in HNSW</title></head><body>
<nav>Home About Login</nav><article><h1>Graph pruning</h1>
<p>HNSW keeps its proximity graph sparse by pruning neighbours: the RNG-pruning rule drops
an edge when a closer neighbour already covers the direction.</p>
<p>Pruning trades recall for build time and memory; a larger candidate list at build time
recovers recall.</p></article></body></html>"""
OTHER = """# Sourdough\n\nA starter of flour and water ferments for days before baking bread.\n"""



@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    (root / "blog").mkdir(parents=True)
    (root / "blog" / "hnsw.html").write_text(ARTICLE)
    (root / "bread.md").write_text(OTHER)
    return root


def test_index_search_json_stats_pages(tmp_path, site, model_dir):
    data = tmp_path / "data"
    out = rewind(data, "index", str(site), "--base-url", "https://me.example/notes/")
    assert "2 new" in out.stdout
    res = json.loads(rewind(data, "search", "pruning neighbours in a graph index",
                            "--json").stdout)
    assert set(res) >= {"mode", "took_ms", "results"}
    top = res["results"][0]
    assert top["url"] == "https://me.example/notes/blog/hnsw.html"
    assert set(top) >= {"url", "title", "score", "confidence", "snippet", "passage",
                        "visited_at"}
    kw = json.loads(rewind(data, "search", "RNG-pruning", "--mode", "keyword",
                           "--json").stdout)
    assert kw["results"][0]["url"].endswith("hnsw.html")
    human = rewind(data, "search", "bread starter").stdout
    assert "Sourdough" in human.splitlines()[0]
    stats = json.loads(rewind(data, "stats", "--json").stdout)
    assert stats["pages"] == 2 and stats["embedder_ready"]
    pages = json.loads(rewind(data, "pages", "--json").stdout)
    assert len(pages) == 2
    again = rewind(data, "index", str(site), "--base-url", "https://me.example/notes/")
    assert "2 unchanged" in again.stdout
    report = json.loads(rewind(data, "doctor", "--json", check=False).stdout)
    checks = {c["name"]: c["ok"] for c in report["checks"]}
    assert checks["store"] and checks["text index"] and checks["vectors"], report
    assert checks["model all-minilm-l6-v2-int8"], report
    assert checks["model smollm2-135m-instruct-q8_0"], report  # the answering model


def test_file_urls_without_base(tmp_path, site, model_dir):
    data = tmp_path / "data"
    rewind(data, "index", str(site / "bread.md"))
    res = json.loads(rewind(data, "search", "bread", "--json").stdout)
    assert res["results"][0]["url"] == (site / "bread.md").resolve().as_uri()


def test_bad_files_are_skipped_with_reasons_and_nothing_half_stored(tmp_path, site, model_dir):
    data = tmp_path / "data"
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.txt").write_text("")
    (bad / "huge.txt").write_text("word " * (2 * 1024 * 1024))  # 10 MB
    (bad / "binary.html").write_bytes(b"\x00\x01\x02ELF" * 100)
    (bad / "fine.txt").write_text("A perfectly fine note about tidal energy and turbines.")
    out = rewind(data, "index", str(bad), check=False)
    assert out.returncode == 1
    assert "empty" in out.stderr and "MB" in out.stderr and "binary" in out.stderr
    pages = json.loads(rewind(data, "pages", "--json").stdout)
    assert [p["url"].rsplit("/", 1)[1] for p in pages] == ["fine.txt"]


@pytest.mark.parametrize(("args", "needle"), [
    (["index", "/no/such/path"], "no such file"),
    (["index", "SITE", "--base-url", "not a url"], "Not a valid URL"),
    (["reindex", "--model", "no-such-model"], "all-minilm-l6-v2-int8"),
    (["search", "x", "--since", "yesterday-ish"], "not a date"),
])
def test_errors_say_what_to_do(tmp_path, site, model_dir, args, needle):
    args = [str(site) if a == "SITE" else a for a in args]
    out = rewind(tmp_path / "data", *args, check=False)
    assert out.returncode in (1, 2)
    assert needle in out.stderr
    assert "Traceback" not in out.stderr


def test_search_before_anything_is_indexed(tmp_path):
    out = rewind(tmp_path / "nothing", "search", "x", check=False)
    assert out.returncode == 1 and "rewind index" in out.stderr


def test_missing_model_file(tmp_path, site, model_dir):
    empty_models = tmp_path / "models"
    env = {"REWIND_MODEL_DIR": str(empty_models)}
    data = tmp_path / "data"
    out = rewind(data, "index", str(site), env=env)
    assert "not installed" in out.stderr and "reindex" in out.stderr
    res = rewind(data, "search", "pruning", env=env)
    assert "keyword" in res.stderr and "Graph pruning" in res.stdout
    doc = rewind(data, "doctor", env=env, check=False)
    assert doc.returncode == 1 and "build.py install" in doc.stdout
    models = json.loads(rewind(data, "models", "--json", env=env).stdout)
    assert not any(m["installed"] for m in models)
