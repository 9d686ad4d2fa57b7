"""The requests of backup and import, each declared with its lane and schema (their table
`REQUESTS` joins handlers.py's).

`backup` streams the backup file's bytes (base64, frames under 1 MiB) to the options
page, which saves them as a file; `import_chunk` receives a file the person picked, in
pieces under the request limit, into an upload in the profile's `uploads/` folder;
`import_backup` imports it (control/restore.py: checked whole first, then through the
capture gate), with progress frames, and deletes the upload whatever happens.
This module must never open a path a request names (an upload id is checked to be a
plain name), nor keep an upload after its import.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import time
from pathlib import Path

from .. import faults
from ..errors import Code, RewindError
from .context import Ctx, Reply, Requests
from .framing import MAX_SAFE_INT, encode
from .replies import part_reply
from .schema import F, Int, Obj, Str

UPLOADS = "uploads"
UPLOAD_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
STALE_UPLOAD_S = 86400.0
PROGRESS_EVERY_S = 0.5
PASSPHRASE = Str(1000)
UPLOAD = Str(64, min_chars=1)  # an upload's id (checked again: _upload_path)
REQUESTS = Requests()


def _upload_path(data_dir: Path, upload: str) -> Path:
    if not UPLOAD_ID.match(upload):
        raise RewindError(Code.BAD_REQUEST, "upload: 1-64 characters of A-Z a-z 0-9 _ -.")
    return data_dir / UPLOADS / f"{upload}.part"


def drop_stale_uploads(data_dir: Path) -> None:
    """Uploads a closed options page left behind (called at hello)."""
    folder = data_dir / UPLOADS
    if not folder.is_dir():
        return
    for f in folder.glob("*.part"):
        try:
            if time.time() - f.stat().st_mtime > STALE_UPLOAD_S:
                f.unlink()
        except OSError:
            pass


@REQUESTS.handler("slow", Obj({"passphrase": F(PASSPHRASE, nullable=True)}))
def backup(ctx: Ctx) -> Reply:
    from ..control import dump

    a = ctx.args
    eng = ctx.engine
    # base64 of `raw` bytes, with the envelope, stays under the frame limit
    raw = (ctx.max_frame - 1024) * 3 // 4 // 3 * 3
    counts: dict[str, int] = {}
    buf = bytearray()
    total = 0
    pw = a["passphrase"] or None
    for chunk in dump.backup_bytes(eng, pw, counts=counts):
        buf += chunk
        while len(buf) >= raw:
            ctx.check_cancelled()
            faults.hit("backup_frame")
            piece, buf = bytes(buf[:raw]), buf[raw:]
            total += len(piece)
            ctx.send_frames([encode(part_reply(ctx.req.id, data=base64.b64encode(piece)
                                               .decode("ascii")), ctx.max_frame)])
    total += len(buf)
    faults.hit("backup_frame")  # the last frame too: a small backup is only that one
    eng.audit.write("exported", file="(options page)", kind="backup",
                    pages=counts.get("pages", 0), encrypted=bool(pw))
    return {"data": base64.b64encode(bytes(buf)).decode("ascii"), "format": "rewind-backup",
            "bytes": total, "pages": counts.get("pages", 0), "encrypted": bool(pw)}


@REQUESTS.handler("write", lambda s: Obj({
    "upload": F(UPLOAD, required=True),
    "offset": F(Int(0, MAX_SAFE_INT), required=True),
    "data": F(Str(s.max_import_chunk_bytes), required=True),
}))
def import_chunk(ctx: Ctx) -> Reply:
    a = ctx.args
    path = _upload_path(ctx.session.data_dir, a["upload"])
    try:
        data = base64.b64decode(a["data"], validate=True)
    except (binascii.Error, ValueError):
        raise RewindError(Code.BAD_REQUEST, "import_chunk: data is not base64.") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    have = path.stat().st_size if path.exists() else 0
    if a["offset"] == 0:
        have = 0
    elif a["offset"] != have:
        raise RewindError(Code.BAD_REQUEST, f"import_chunk: offset {a['offset']} but "
                          f"{have} bytes of this upload arrived.",
                          "Send the pieces in order, from offset 0.")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if have == 0 else 0), 0o600)
    try:
        os.lseek(fd, have, os.SEEK_SET)
        os.write(fd, data)
    finally:
        os.close(fd)
    return {"received": have + len(data)}


@REQUESTS.handler("slow", Obj({"upload": F(UPLOAD, required=True),
                                "passphrase": F(PASSPHRASE, nullable=True)}))
def import_backup(ctx: Ctx) -> Reply:
    from ..control import restore

    a = ctx.args
    path = _upload_path(ctx.session.data_dir, a["upload"])
    if not path.exists():
        raise RewindError(Code.BAD_REQUEST, "import_backup: no such upload.",
                          "Send the file with import_chunk first.")
    last = [0.0]

    def progress(done: int, total: int) -> None:
        ctx.check_cancelled()
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_S or done == total:
            last[0] = now
            ctx.send_frames([encode(part_reply(ctx.req.id, progress={"done": done,
                                                                     "total": total}),
                                    ctx.max_frame)])

    try:
        result = restore.restore(ctx.engine, path, a["passphrase"] or None, progress)
    finally:
        path.unlink(missing_ok=True)
    return {"result": result.to_dict()}
