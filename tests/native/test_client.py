"""`rewind send` (rewind/native/client.py): talks to the host as the browser does and prints
every reply frame as a JSON line."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys

from support.host_process import ORIGIN, ROOT


def run_send(tmp_path, *args) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT / "host"),
        REWIND_ALLOWED_ORIGINS=ORIGIN,
        REWIND_DATA_DIR=str(tmp_path / "data"),
        REWIND_MODEL_DIR=str(tmp_path / "nm"),
    )
    return subprocess.run(
        [sys.executable, "-m", "rewind", "send", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_rewind_send_prints_every_reply_frame(tmp_path):
    r = run_send(tmp_path, '{"type": "stats"}', '{"type": "export"}')
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert sorted(x["id"] for x in lines) == ["send-0", "send-1", "send-2"]
    assert lines[0]["protocol_version"] == 1  # send starts with hello, like the extension
    assert all(x["ok"] and x["done"] for x in lines)
    r = run_send(tmp_path, '{"type": "search", "query": 1}')
    assert r.returncode == 1
    assert json.loads(r.stdout.splitlines()[-1])["error"]["code"] == "bad_request"


def test_rewind_send_raw_reproduces_a_bad_frame(tmp_path):
    raw = tmp_path / "bad.bin"
    raw.write_bytes(struct.pack("=I", 4) + b"{{{{" + struct.pack("=I", 100) + b"{")
    r = run_send(tmp_path, "--raw", str(raw))
    assert r.returncode == 1
    codes = [json.loads(line)["error"]["code"] for line in r.stdout.splitlines()]
    assert codes == ["bad_json", "bad_frame"]
