"""`download.pull`: real downloads from a local HTTP server on 127.0.0.1
(tests/support/model_server.py, the `mirror` fixture of tests/models/conftest.py).

The server honours Range requests (or ignores them, or answers from the wrong byte),
drops the connection part way through a file, cuts a chunked answer off, and records
every request it gets, so the tests see what the client really asked for. Specs are tiny,
some without a sha256 known in advance (then the file's bytes are all that tells a right
download from a wrong one). The command, `rewind models pull`: test_download_cli.py.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import filelock
import pytest
from rewind.errors import Code, RewindError
from rewind.models import download, installed, specs
from rewind.models.specs import FileSpec, LlmSpec
from support.model_server import ModelHost as Mirror
from support.tiny_model import CONTENT, SMALL, template


def spec(sha: str | None = None, small: bool = False) -> LlmSpec:
    files = [FileSpec("weights.bin", sha, download="org/tiny weights.bin")]
    if small:
        files.append(FileSpec("small.json", None, download="org/tiny conf/small.json"))
    return LlmSpec("tiny", "a test model", 512, 0.2, 16, tuple(files))


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
    assert names(folder) == {"weights.bin", "small.json", installed.MARKER}  # no .part left
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
    st = installed.status(spec(small=True), tmp_path)
    assert [f.state for f in st.files] == [installed.FileState.OK] * 2


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
    assert names(tmp_path / "tiny") == {"weights.bin", installed.MARKER}


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
    recorded = json.loads((folder / installed.MARKER).read_text())["weights.bin"]["sha256"]
    assert recorded == first.sha256 == hashlib.sha256(CONTENT).hexdigest()
    # Damage the file: a later check compares with the sha256 recorded at first use.
    (folder / "weights.bin").write_bytes(CONTENT[:-1] + b"\0")
    assert installed.status(spec(), tmp_path, verify=True).mismatched == ["weights.bin"]
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
    qwen = specs.llm_spec("qwen2.5-1.5b-instruct-q4_k_m")
    (f,) = qwen.files
    repo, _, path = (f.download or "").partition(" ")
    mirror.files = {f"/{repo}/resolve/main/{path}": SMALL}
    with pytest.raises(RewindError) as err:
        download.pull(qwen, tmp_path, template(mirror), timeout=5, retries=0)
    assert err.value.code is Code.MODEL_INVALID and "1,117,320,736" in err.value.message
    assert [r.path for r in mirror.log] == [
        "/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf"]
    assert names(tmp_path / qwen.name) == set()
    assert not installed.status(qwen, tmp_path).installed


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
    minilm = specs.embedding_spec("all-minilm-l6-v2-int8")
    with pytest.raises(RewindError) as err:
        download.pull(minilm, tmp_path, template(mirror), timeout=5, retries=0)
    assert err.value.code is Code.NOT_AVAILABLE and "build.py install" in err.value.hint
    assert mirror.log == [] and not (tmp_path / minilm.name).exists()
