"""`rewind models pull`, the real command: from a mirror (a local HTTP server on 127.0.0.1,
the `mirror` fixture of tests/models/conftest.py) or from the published addresses,
reached through $REWIND_TEST_MODEL_HOST, a local server laid out like the model host; its
progress, what `rewind models` lists after it, resuming, and the errors it names.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rewind.models import installed, sources, specs
from support.model_server import PROXY_VARS, serving
from support.model_server import ModelHost as Mirror
from support.tiny_model import CONTENT, SMALL, template

ROOT = Path(__file__).resolve().parents[1]
GEMMA = "embeddinggemma-300m"


def run_rewind(args: list[str], model_dir: Path, mirror_env: str | None = None,
               catalog: Path | None = None, test_host: str | None = None):
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS}
    for var in (sources.MIRROR_ENV, sources.TEST_HOST_ENV, specs.TEST_CATALOG_ENV):
        env.pop(var, None)
    if mirror_env:
        env[sources.MIRROR_ENV] = mirror_env
    if test_host:
        env[sources.TEST_HOST_ENV] = test_host
    if catalog:
        env[specs.TEST_CATALOG_ENV] = str(catalog)
    env["REWIND_MODEL_DIR"] = str(model_dir)
    env["REWIND_DATA_DIR"] = str(model_dir.parent / "data")
    cmd = [sys.executable, "-m", "rewind"]  # .venv/bin/python when run as documented
    return subprocess.run(
        [*cmd, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )


def test_cli_pulls_a_model_from_a_mirror(mirror: Mirror, tmp_path: Path):
    # A catalog with one pinned file and one without a published sha256.
    catalog = tmp_path / "models.json"
    catalog.write_text(json.dumps({"embedding": {}, "llm": {"tiny": {
        "description": "a test model", "n_ctx": 512, "temperature": 0.2,
        "max_answer_tokens": 16, "files": {
            "model.gguf": {"sha256": hashlib.sha256(CONTENT).hexdigest(),
                           "bytes": len(CONTENT), "download": "org/tiny weights.bin",
                           "url": "https://models.example/org/tiny/resolve/main/weights.bin"},
            "small.json": {"sha256": None, "download": "org/tiny conf/small.json",
                           "url": "https://models.example/org/tiny/resolve/main/conf/small.json"},
        }}}}))
    model_dir = tmp_path / "models"
    proc = run_rewind(["models", "pull", "tiny", "--mirror", template(mirror)], model_dir,
                      catalog=catalog)
    assert proc.returncode == 0, proc.stderr
    folder = model_dir / "tiny"
    assert (folder / "model.gguf").read_bytes() == CONTENT
    assert (folder / "small.json").read_bytes() == SMALL
    assert f"installed  {folder / 'model.gguf'}" in proc.stdout
    small_sha = hashlib.sha256(SMALL).hexdigest()
    assert f"sha256 {small_sha} recorded: models.json has none" in proc.stdout
    # progress on stderr, a line per 10% (not a terminal), and a full bar at the end
    bars = [line for line in proc.stderr.splitlines() if line.startswith("model.gguf [")]
    assert len(bars) >= 3 and bars[-1].startswith("model.gguf [" + "#" * 30 + "]")
    assert f"small.json [{'#' * 30}]" in proc.stderr

    listed = run_rewind(["models", "--json"], model_dir, catalog=catalog)
    (row,) = json.loads(listed.stdout)
    assert row["installed"] and not row["sha256_published"]
    assert row["status"].startswith("installed (no published sha256: checked against the one "
                                    "recorded when it was first downloaded")
    human = run_rewind(["models"], model_dir, catalog=catalog).stdout
    assert "no published sha256: the first download is trusted" in human

    mirror.log.clear()  # again: everything is kept, and the mirror is not asked anything
    again = run_rewind(["models", "pull", "tiny", "--json"], model_dir,
                       mirror_env=template(mirror), catalog=catalog)
    assert again.returncode == 0, again.stderr
    rows = json.loads(again.stdout)["files"]
    assert [r["already_installed"] for r in rows] == [True, True]
    assert mirror.log == []


def test_cli_refuses_stand_in_bytes_for_the_real_embeddinggemma(mirror: Mirror, tmp_path: Path):
    gemma = specs.embedding_spec(GEMMA)
    assert all(f.sha256 and f.bytes for f in gemma.files)  # published, pinned
    mirror.files = {}
    for f in gemma.files:
        repo, _, path = (f.download or "").partition(" ")
        mirror.files[f"/{repo}/resolve/main/{path}"] = SMALL
    proc = run_rewind(["models", "pull", GEMMA, "--mirror", template(mirror)],
                      tmp_path / "models")
    assert proc.returncode == 1 and "models.json expects 479,932" in proc.stderr
    assert "Nothing was installed" in proc.stderr
    assert not any((tmp_path / "models" / GEMMA).glob("model*"))


# ---- from the published addresses (a local server standing in for the model host) --------


PUBLISHED = "https://models.example"  # the host the test catalog names
PUBLISHED_HF = "https://huggingface.co"  # models.json's


def published_catalog(tmp_path: Path, sha: str | None = None) -> Path:
    """A catalog like models.json: one model, its file's address, sha256 and size pinned."""
    catalog = tmp_path / "models.json"
    catalog.write_text(json.dumps({"embedding": {}, "llm": {"tiny": {
        "description": "a test model", "n_ctx": 512, "temperature": 0.2,
        "max_answer_tokens": 16, "files": {"model.gguf": {
            "sha256": sha or hashlib.sha256(CONTENT).hexdigest(), "bytes": len(CONTENT),
            "download": "org/tiny weights.bin",
            "url": f"{PUBLISHED}/org/tiny/resolve/main/weights.bin"}}}}}))
    return catalog


def pull_published(host: Mirror | str, model_dir: Path, catalog: Path | None, *more: str,
                   name: str = "tiny"):
    base = host if isinstance(host, str) else host.url
    return run_rewind(["models", "pull", name, *more], model_dir, catalog=catalog,
                      test_host=base)


def test_cli_pulls_from_the_published_address_by_default(mirror: Mirror, tmp_path: Path):
    model_dir = tmp_path / "models"
    proc = pull_published(mirror, model_dir, published_catalog(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert (model_dir / "tiny" / "model.gguf").read_bytes() == CONTENT
    assert [r.path for r in mirror.log] == ["/org/tiny/resolve/main/weights.bin"]
    assert f"downloading from {mirror.url} instead of the published addresses" in proc.stderr
    bars = [line for line in proc.stderr.splitlines() if line.startswith("model.gguf [")]
    assert len(bars) >= 3 and bars[-1].startswith("model.gguf [" + "#" * 30 + "]")
    assert f"installed  {model_dir / 'tiny' / 'model.gguf'}" in proc.stdout
    listed = json.loads(run_rewind(["models", "--json", "--verify"], model_dir,
                                   catalog=published_catalog(tmp_path)).stdout)
    assert listed[0]["installed"] and listed[0]["sha256_published"]


def test_cli_resumes_after_a_cut_connection(tmp_path: Path):
    # The connection is cut a megabyte in, and the server is gone: the command stops and
    # says where it could not reach; run again later, it asks only for the rest.
    model_dir, catalog = tmp_path / "models", published_catalog(tmp_path)
    host = Mirror(files={"/org/tiny/resolve/main/weights.bin": CONTENT},
                  plan=["drop_then_down"])
    with serving(host):
        port = int(host.url.rsplit(":", 1)[1])
        proc = pull_published(host, model_dir, catalog, "--json")
    assert proc.returncode == 1  # the retry after the cut found nobody there
    assert f"Could not reach 127.0.0.1:{port} (nothing answers there" in proc.stderr
    assert f"resumes from {host.drop_at:,} bytes" in proc.stderr
    folder = model_dir / "tiny"
    assert (folder / ".model.gguf.part").read_bytes() == CONTENT[: host.drop_at]
    assert not (folder / "model.gguf").exists()

    again = Mirror(files=host.files)
    with serving(again, port=port):
        proc = pull_published(again, model_dir, catalog, "--json")
    assert proc.returncode == 0, proc.stderr
    assert again.ranges == [f"bytes={host.drop_at}-"] and again.log[0].status == 206
    (row,) = json.loads(proc.stdout)["files"]
    assert row["sha256"] == hashlib.sha256(CONTENT).hexdigest()
    assert row["checked_against"] == "models.json"
    assert (folder / "model.gguf").read_bytes() == CONTENT
    assert not (folder / ".model.gguf.part").exists()


def test_cli_resumes_within_one_pull_when_the_server_stays(tmp_path: Path):
    model_dir, catalog = tmp_path / "models", published_catalog(tmp_path)
    host = Mirror(files={"/org/tiny/resolve/main/weights.bin": CONTENT}, plan=["drop"])
    with serving(host):
        proc = pull_published(host, model_dir, catalog)
    assert proc.returncode == 0, proc.stderr
    assert host.ranges == [None, f"bytes={host.drop_at}-"]
    assert [r.status for r in host.log] == [200, 206]
    assert (model_dir / "tiny" / "model.gguf").read_bytes() == CONTENT


def test_cli_refuses_a_wrong_checksum(mirror: Mirror, tmp_path: Path):
    wrong = hashlib.sha256(b"the file models.json pins").hexdigest()
    model_dir = tmp_path / "models"
    proc = pull_published(mirror, model_dir, published_catalog(tmp_path, sha=wrong))
    assert proc.returncode == 1
    assert f"has sha256 {hashlib.sha256(CONTENT).hexdigest()}, expected {wrong}" in proc.stderr
    assert "Nothing was installed: 127.0.0.1" in proc.stderr
    assert not any((model_dir / "tiny").glob("*model.gguf*"))  # nor a part file
    listed = json.loads(run_rewind(["models", "--json"], model_dir,
                                   catalog=published_catalog(tmp_path, sha=wrong)).stdout)
    assert not listed[0]["installed"]


def test_cli_refuses_stand_in_bytes_for_the_real_recommended_model(mirror: Mirror,
                                                                   tmp_path: Path):
    qwen = specs.llm_spec("qwen2.5-1.5b-instruct-q4_k_m")
    (f,) = qwen.files
    mirror.files = {sources.source_url(None, qwen, f).removeprefix(PUBLISHED_HF): SMALL}
    proc = pull_published(mirror, tmp_path / "models", None, name=qwen.name)
    assert proc.returncode == 1 and "models.json expects 1,117,320,736" in proc.stderr
    assert [r.path for r in mirror.log] == [
        "/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf"]
    assert not installed.status(qwen, tmp_path / "models").installed


@pytest.mark.parametrize("where,words", [
    ("http://model-host.invalid", "Could not reach model-host.invalid (its name could not be "
                                  "looked up"),
    ("closed", "Could not reach 127.0.0.1:{port} (nothing answers there"),
])
def test_cli_without_network_names_the_address_it_could_not_reach(tmp_path: Path, where: str,
                                                                   words: str):
    if where == "closed":  # a port nobody listens on
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        where, words = f"http://127.0.0.1:{port}", words.format(port=port)
    proc = pull_published(where, tmp_path / "models", published_catalog(tmp_path))
    assert proc.returncode == 1
    assert words in proc.stderr
    assert f"{where}/org/tiny/resolve/main/weights.bin" in proc.stderr  # the whole address
    assert "--mirror" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "models" / "tiny" / "model.gguf").exists()
