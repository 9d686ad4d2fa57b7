"""`rewind models pull`: real downloads from a local HTTP server on 127.0.0.1.

The server honours Range requests (or ignores them, or answers from the wrong byte),
drops the connection part way through a file, cuts a chunked answer off, and records
every request it gets, so the tests see what the client really asked for. Specs are tiny
and, like the downloadable models in models.json, mostly have no sha256 known in advance:
the file's bytes are all that tells a right download from a wrong one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import filelock
import pytest
from rewind.errors import Code, RewindError
from rewind.index import download, models
from rewind.index.models import FileSpec, LlmSpec

ROOT = Path(__file__).resolve().parents[1]
CONTENT = random.Random(7).randbytes(2 * download.CHUNK + 123_457)  # three read chunks
SMALL = random.Random(8).randbytes(5_000)
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


@dataclass
class Request:
    path: str
    range: str | None
    status: int


@dataclass
class Mirror:
    """A local mirror: `files` maps URL paths to bytes; `plan` says how to answer next."""

    files: dict[str, bytes]
    plan: list[str] = field(default_factory=list)  # one mode per request, then "range"
    drop_at: int = download.CHUNK + 1000  # "drop" stops here (or half way through the rest)
    log: list[Request] = field(default_factory=list)
    sleeps: list[float] = field(default_factory=list)  # the client's back-off between retries
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_mode(self) -> str:
        with self.lock:
            return self.plan.pop(0) if self.plan else "range"

    def record(self, path: str, rng: str | None, status: int) -> None:
        with self.lock:
            self.log.append(Request(path, rng, status))

    @property
    def ranges(self) -> list[str | None]:
        return [r.range for r in self.log]


def handler_for(mirror: Mirror) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.close_connection = True
            body = mirror.files.get(self.path)
            rng = self.headers.get("Range")
            mode = mirror.next_mode()
            if body is None:
                return self._send(404, b"not here", rng)
            n = len(body)
            if mode == "chunked_drop":  # 200, chunked, cut off without the last chunk
                mirror.record(self.path, rng, 200)
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Connection", "close")
                self.end_headers()
                for i in range(0, mirror.drop_at, 64 * 1024):
                    piece = body[i : min(i + 64 * 1024, mirror.drop_at)]
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.flush()
                return
            start = 0
            m = re.fullmatch(r"bytes=(\d+)-", rng or "")
            if m and mode != "ignore_range":
                start = int(m.group(1))
                if mode == "from_zero":  # claims 206 but sends the file from byte 0
                    start = 0
                elif mode == "from_elsewhere":  # 206 from a byte that is not the one asked for
                    start = max(0, start - 10)
                elif start >= n:
                    return self._send(416, b"", rng, {"Content-Range": f"bytes */{n}"})
                headers = {"Content-Range": f"bytes {start}-{n - 1}/{n}"}
                status = 206
            else:
                headers, status = {}, 200
            end = n
            if mode == "drop":
                end = mirror.drop_at if start < mirror.drop_at else start + (n - start) // 2
            self._send(status, body[start:n], rng, headers, stop=end - start)

        def _send(
            self,
            status: int,
            body: bytes,
            rng: str | None,
            headers: dict[str, str] | None = None,
            stop: int | None = None,
        ) -> None:
            mirror.record(self.path, rng, status)
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))  # the whole, even if cut off
            self.send_header("Connection", "close")
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # client hung up
                self.wfile.write(body[:stop])
                self.wfile.flush()

    return Handler


@pytest.fixture
def mirror(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mirror]:
    for var in PROXY_VARS:  # 127.0.0.1 is reached directly, never through a proxy
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv(download.MIRROR_ENV, raising=False)
    m = Mirror(
        files={
            "/org/tiny/resolve/main/weights.bin": CONTENT,
            "/org/tiny/resolve/main/conf/small.json": SMALL,
        }
    )
    monkeypatch.setattr(  # retries back off without the tests waiting for it
        download, "time", types.SimpleNamespace(sleep=m.sleeps.append, monotonic=lambda: 0.0)
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(m))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    m.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield m
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def spec(sha: str | None = None, small: bool = False) -> LlmSpec:
    files = [FileSpec("weights.bin", sha, download="org/tiny weights.bin")]
    if small:
        files.append(FileSpec("small.json", None, download="org/tiny conf/small.json"))
    return LlmSpec("tiny", "a test model", 512, 0.2, 16, tuple(files))


def template(m: Mirror) -> str:
    return m.url + "/{repo}/resolve/main/{path}"


def pull(m: Mirror, model_dir: Path, sp: LlmSpec | None = None, retries: int = 0, **kw):
    return download.pull(sp or spec(), model_dir, template(m), timeout=5, retries=retries, **kw)


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()} - {download.LOCK_NAME}


def test_full_download_lands_under_its_real_name(mirror: Mirror, tmp_path: Path):
    seen: list[tuple[str, int, int | None]] = []
    out = pull(mirror, tmp_path, spec(small=True), progress=lambda *a: seen.append(a))
    folder = tmp_path / "tiny"
    assert (folder / "weights.bin").read_bytes() == CONTENT
    assert (folder / "small.json").read_bytes() == SMALL
    assert names(folder) == {"weights.bin", "small.json", models.MARKER}  # no .part left
    assert [p.name for p in out] == ["weights.bin", "small.json"]
    assert out[0].sha256 == hashlib.sha256(CONTENT).hexdigest()
    assert out[0].bytes == len(CONTENT) and not out[0].skipped and not out[0].verified
    assert mirror.ranges == [None, None]
    assert [r.path for r in mirror.log] == [
        "/org/tiny/resolve/main/weights.bin",
        "/org/tiny/resolve/main/conf/small.json",
    ]
    progress = [s for s in seen if s[0] == "weights.bin"]
    assert progress[-1] == ("weights.bin", len(CONTENT), len(CONTENT))
    assert [s[1] for s in progress] == sorted(s[1] for s in progress) and len(progress) == 3
    # the checksums are recorded: a later start trusts the files without hashing them
    st = models.status(spec(small=True), tmp_path)
    assert [f.state for f in st.files] == [models.FileState.OK] * 2


def test_interrupted_download_leaves_only_the_part_file_then_resumes(
    mirror: Mirror, tmp_path: Path
):
    mirror.plan = ["drop"]
    with pytest.raises(RewindError) as err:
        pull(mirror, tmp_path)
    assert err.value.code is Code.NOT_AVAILABLE
    assert "resumes" in err.value.hint
    folder = tmp_path / "tiny"
    part = folder / ".weights.bin.part"
    assert names(folder) == {".weights.bin.part"}  # never a half file under the real name
    assert part.read_bytes() == CONTENT[: mirror.drop_at]

    out = pull(mirror, tmp_path)  # the second pull asks only for the rest
    assert mirror.ranges == [None, f"bytes={mirror.drop_at}-"]
    assert [r.status for r in mirror.log] == [200, 206]
    assert (folder / "weights.bin").read_bytes() == CONTENT
    assert not part.exists()
    assert out[0].sha256 == hashlib.sha256(CONTENT).hexdigest()


def test_one_pull_retries_and_resumes_after_a_drop(mirror: Mirror, tmp_path: Path):
    mirror.plan = ["drop", "drop"]  # 1000 bytes, then half of the rest, then the rest
    mirror.drop_at = 1000
    pull(mirror, tmp_path, retries=3)
    second = 1000 + (len(CONTENT) - 1000) // 2
    assert mirror.ranges == [None, "bytes=1000-", f"bytes={second}-"]
    assert [r.status for r in mirror.log] == [200, 206, 206]
    assert (tmp_path / "tiny" / "weights.bin").read_bytes() == CONTENT
    assert mirror.sleeps == [1.0, 2.0]  # backing off, bounded by `retries`


def test_a_cut_off_chunked_answer_is_a_download_error_and_resumes(mirror: Mirror, tmp_path: Path):
    # No Content-Length: only http.client's IncompleteRead (not an OSError) tells.
    mirror.plan = ["chunked_drop"]
    mirror.drop_at = download.CHUNK + 300_000
    with pytest.raises(RewindError) as err:
        pull(mirror, tmp_path)
    assert err.value.code is Code.NOT_AVAILABLE
    folder = tmp_path / "tiny"
    got = (folder / ".weights.bin.part").read_bytes()
    assert got == CONTENT[: len(got)] and len(got) == download.CHUNK
    assert not (folder / "weights.bin").exists()
    pull(mirror, tmp_path)
    assert mirror.ranges == [None, f"bytes={download.CHUNK}-"]
    assert (folder / "weights.bin").read_bytes() == CONTENT


def test_a_server_that_ignores_range_makes_it_start_over(mirror: Mirror, tmp_path: Path):
    mirror.plan = ["drop", "ignore_range"]
    with pytest.raises(RewindError):
        pull(mirror, tmp_path)
    out = pull(mirror, tmp_path)
    assert mirror.ranges == [None, f"bytes={mirror.drop_at}-"]
    assert [r.status for r in mirror.log] == [200, 200]
    assert (tmp_path / "tiny" / "weights.bin").read_bytes() == CONTENT  # not part + whole
    assert out[0].bytes == len(CONTENT)
    assert names(tmp_path / "tiny") == {"weights.bin", models.MARKER}


@pytest.mark.parametrize("answer", ["from_zero", "from_elsewhere"])
def test_a_range_answered_from_another_byte_is_not_appended(
    mirror: Mirror, tmp_path: Path, answer: str
):
    mirror.plan = ["drop", answer]
    with pytest.raises(RewindError):
        pull(mirror, tmp_path)
    pull(mirror, tmp_path, retries=1)
    assert (tmp_path / "tiny" / "weights.bin").read_bytes() == CONTENT
    expected = [None, f"bytes={mirror.drop_at}-"] + ([None] if answer == "from_elsewhere" else [])
    assert mirror.ranges == expected


def test_a_complete_part_file_is_installed_on_416(mirror: Mirror, tmp_path: Path):
    # Interrupted after the last byte, before the rename: nothing is left to fetch.
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / ".weights.bin.part").write_bytes(CONTENT)
    out = pull(mirror, tmp_path)
    assert mirror.ranges == [f"bytes={len(CONTENT)}-"]
    assert [r.status for r in mirror.log] == [416]
    assert (folder / "weights.bin").read_bytes() == CONTENT
    assert out[0].sha256 == hashlib.sha256(CONTENT).hexdigest()


def test_a_stale_part_longer_than_the_file_starts_over(mirror: Mirror, tmp_path: Path):
    # A part left from another version of the file: 416, but not complete. Installing it
    # would put a wrong file in place: with no sha256 known, nothing else would notice.
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / ".weights.bin.part").write_bytes(SMALL * 600)
    pull(mirror, tmp_path)
    assert mirror.ranges == [f"bytes={len(SMALL) * 600}-", None]
    assert (folder / "weights.bin").read_bytes() == CONTENT


def test_sha256_mismatch_deletes_the_part_and_installs_nothing(mirror: Mirror, tmp_path: Path):
    wrong = hashlib.sha256(b"another file").hexdigest()
    with pytest.raises(RewindError) as err:
        pull(mirror, tmp_path, spec(sha=wrong))
    assert err.value.code is Code.MODEL_INVALID
    assert hashlib.sha256(CONTENT).hexdigest() in err.value.message
    assert wrong in err.value.message
    assert "Nothing was installed" in err.value.hint
    assert names(tmp_path / "tiny") == set()
    assert len(mirror.log) == 1


def test_known_sha256_verifies_and_replaces_a_damaged_file(mirror: Mirror, tmp_path: Path):
    sha = hashlib.sha256(CONTENT).hexdigest()
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "weights.bin").write_bytes(CONTENT[:-1] + b"\0")  # present, but not the file
    out = pull(mirror, tmp_path, spec(sha=sha))
    assert out[0].verified and not out[0].skipped and out[0].sha256 == sha
    assert (folder / "weights.bin").read_bytes() == CONTENT
    assert mirror.ranges == [None]


def test_without_a_published_sha256_the_first_download_is_trusted_then_held_to(
    mirror: Mirror, tmp_path: Path
):
    first = pull(mirror, tmp_path)[0]  # spec(): no sha256 in the catalog
    assert not first.verified and first.against == ""
    folder = tmp_path / "tiny"
    recorded = json.loads((folder / models.MARKER).read_text())["weights.bin"]["sha256"]
    assert recorded == first.sha256 == hashlib.sha256(CONTENT).hexdigest()
    # Damage the file: a later check compares with the sha256 recorded at first use.
    (folder / "weights.bin").write_bytes(CONTENT[:-1] + b"\0")
    assert models.status(spec(), tmp_path, verify=True).mismatched == ["weights.bin"]
    # Pulling again fetches it anew and holds the download to that first sha256.
    again = pull(mirror, tmp_path)[0]
    assert again.verified and again.against == "first download"
    assert (folder / "weights.bin").read_bytes() == CONTENT
    # A mirror that now serves another file is refused, and nothing is replaced.
    (folder / "weights.bin").write_bytes(CONTENT[:-1] + b"\0")
    mirror.files["/org/tiny/resolve/main/weights.bin"] = CONTENT[::-1]
    with pytest.raises(RewindError) as err:
        pull(mirror, tmp_path)
    assert err.value.code is Code.MODEL_INVALID
    assert "first downloaded had " + recorded in err.value.message
    assert f"delete {folder}" in err.value.hint
    assert (folder / "weights.bin").read_bytes() == CONTENT[:-1] + b"\0"
    assert not (folder / ".weights.bin.part").exists()


def test_a_size_the_catalog_knows_is_checked_before_downloading(mirror: Mirror, tmp_path: Path):
    sized = LlmSpec("tiny", "", 512, 0.2, 16, (FileSpec(
        "weights.bin", None, download="org/tiny weights.bin", bytes=len(CONTENT) + 1),))
    seen: list[int] = []
    with pytest.raises(RewindError) as err:
        pull(mirror, tmp_path, sized, progress=lambda n, done, total: seen.append(done))
    assert err.value.code is Code.MODEL_INVALID
    assert f"{len(CONTENT):,} bytes; models.json expects {len(CONTENT) + 1:,}" in (
        err.value.message)
    assert seen == [] and len(mirror.log) == 1  # refused on the announced size, not read
    assert names(tmp_path / "tiny") == set()


def test_a_catalog_model_from_a_mirror_serving_another_file_is_refused(
    mirror: Mirror, tmp_path: Path
):
    # The real ladder spec: the URL comes from its download entry; the stand-in bytes are
    # not the published file, so the size check refuses them before any is kept.
    qwen = models.llm_spec("qwen2.5-1.5b-instruct-q4_k_m")
    (f,) = qwen.files
    repo, _, path = (f.download or "").partition(" ")
    mirror.files = {f"/{repo}/resolve/main/{path}": SMALL}
    with pytest.raises(RewindError) as err:
        download.pull(qwen, tmp_path, template(mirror), timeout=5, retries=0)
    assert err.value.code is Code.MODEL_INVALID and "1,117,320,736" in err.value.message
    assert [r.path for r in mirror.log] == [
        "/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf"]
    assert names(tmp_path / qwen.name) == set()
    assert not models.status(qwen, tmp_path).installed


def test_installed_verified_files_are_skipped_without_contacting_the_server(
    mirror: Mirror, tmp_path: Path
):
    sha = hashlib.sha256(CONTENT).hexdigest()
    pull(mirror, tmp_path, spec(sha=sha))
    mirror.log.clear()
    out = pull(mirror, tmp_path, spec(sha=sha))
    assert mirror.log == []
    assert [(p.name, p.skipped, p.verified, p.bytes) for p in out] == [
        ("weights.bin", True, True, len(CONTENT))
    ]


def test_one_pull_of_a_model_at_a_time(mirror: Mirror, tmp_path: Path):
    (tmp_path / "tiny").mkdir()
    other = filelock.FileLock(str(tmp_path / "tiny" / download.LOCK_NAME))
    with other, pytest.raises(RewindError) as err:  # as another `rewind models pull tiny`
        pull(mirror, tmp_path)
    assert "Another `rewind models pull tiny`" in err.value.message
    assert mirror.log == []
    pull(mirror, tmp_path)
    assert (tmp_path / "tiny" / "weights.bin").read_bytes() == CONTENT


def test_a_missing_file_on_the_mirror_is_a_clear_error(mirror: Mirror, tmp_path: Path):
    sp = LlmSpec("tiny", "", 512, 0.2, 16, (FileSpec("x.bin", None, download="org/tiny x.bin"),))
    with pytest.raises(RewindError) as err:
        pull(mirror, tmp_path, sp, retries=3)
    assert err.value.code is Code.NOT_FOUND and "404" in err.value.message
    assert len(mirror.log) == 1  # not retried
    assert names(tmp_path / "tiny") == set()


def test_packaged_files_are_not_downloaded(mirror: Mirror, tmp_path: Path):
    minilm = models.embedding_spec("all-minilm-l6-v2-int8")
    with pytest.raises(RewindError) as err:
        download.pull(minilm, tmp_path, template(mirror), timeout=5, retries=0)
    assert err.value.code is Code.NOT_AVAILABLE and "build.py install" in err.value.hint
    assert mirror.log == [] and not (tmp_path / minilm.name).exists()


def test_no_mirror_is_a_clear_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(download.MIRROR_ENV, raising=False)
    with pytest.raises(RewindError) as err:
        download.mirror_setting(None)
    assert err.value.code is Code.NOT_AVAILABLE
    assert "REWIND_MODEL_MIRROR" in str(err.value) and "--mirror" in str(err.value)
    monkeypatch.setenv(download.MIRROR_ENV, "  http://127.0.0.1:9/{repo}/{path} ")
    assert download.mirror_setting(None) == "http://127.0.0.1:9/{repo}/{path}"
    assert download.mirror_setting("http://127.0.0.1:8/m") == "http://127.0.0.1:8/m"  # wins


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
        download.mirror_setting(bad)
    assert err.value.code is Code.BAD_REQUEST


def test_file_urls_from_a_template_or_a_base_url():
    sp = spec()
    f = FileSpec("w b.bin", None, download="org/tiny dir/w b.bin")
    assert download.file_url("http://h/{repo}/resolve/main/{path}", sp, f) == (
        "http://h/org/tiny/resolve/main/dir/w%20b.bin"
    )
    assert download.file_url("http://h/m/{model}/{file}", sp, f) == "http://h/m/tiny/w%20b.bin"
    assert download.file_url("http://h/base/", sp, f) == "http://h/base/org/tiny/dir/w%20b.bin"
    for bad in ("http://h/{rep}/{path}", "http://h/{0}", "http://h/{repo.x}", "http://h/{path[a]}"):
        with pytest.raises(RewindError) as err:
            download.file_url(bad, sp, f)
        assert err.value.code is Code.BAD_REQUEST and "unknown field" in err.value.message


# ---- the real command -------------------------------------------------------------------


GEMMA = "embeddinggemma-300m"
# The command with a catalog of its own: every model in models.json has a published
# sha256, so stand-in bytes could never be installed under a real model's name.
WITH_CATALOG = (
    "import sys; from pathlib import Path; from rewind.index import models; "
    "real = models.load_specs; "
    "models.load_specs = lambda source=None: real(source or Path(sys.argv[1])); "
    "from rewind.cli import main; sys.exit(main(sys.argv[2:]))"
)


def run_rewind(args: list[str], model_dir: Path, mirror_env: str | None = None,
               catalog: Path | None = None):
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS}
    env.pop(download.MIRROR_ENV, None)
    if mirror_env:
        env[download.MIRROR_ENV] = mirror_env
    env["REWIND_MODEL_DIR"] = str(model_dir)
    env["REWIND_DATA_DIR"] = str(model_dir.parent / "data")
    cmd = [sys.executable, "-m", "rewind"]  # .venv/bin/python when run as documented
    if catalog:
        cmd = [sys.executable, "-c", WITH_CATALOG, str(catalog)]
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
                           "bytes": len(CONTENT), "download": "org/tiny weights.bin"},
            "small.json": {"sha256": None, "download": "org/tiny conf/small.json"}}}}}))
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
    gemma = models.embedding_spec(GEMMA)
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


def test_cli_without_a_mirror_says_how_to_set_one(tmp_path: Path):
    proc = run_rewind(["models", "pull", GEMMA], tmp_path / "models")
    assert proc.returncode == 1
    assert "REWIND_MODEL_MIRROR" in proc.stderr and "docs/answers.md" in proc.stderr
    assert not (tmp_path / "models").exists()
