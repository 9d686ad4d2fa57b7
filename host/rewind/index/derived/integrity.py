"""Is the text index whole? tantivy's files, checked against the checksums they carry.

tantivy ends every segment file with a footer: its JSON (version and a CRC-32 of the
bytes before it), the JSON's length and a magic number. A file cut short loses its footer;
a flipped bit no longer matches the CRC; a segment `meta.json` names but whose file is
gone is missing. `problems` reads each file tantivy's meta.json names and says what is
wrong; a file checked once is remembered by its size and modification time in `checked`
(beside the index), so a process opening a large index re-reads only what changed since
(`full=True` reads everything: `rewind doctor`).
This module must never repair anything: the text index rebuilds itself from the store.
"""

from __future__ import annotations

import json
import os
import re
import struct
import zlib
from pathlib import Path

FOOTER_MAGIC = 1337  # tantivy's FOOTER_MAGIC_NUMBER
COMPONENTS = ("idx", "pos", "term", "store", "fast", "fieldnorm")
CHECKED = "checked"  # name -> [size, mtime_ns] of files whose checksum matched
_CHUNK = 1 << 20
_SEGMENT_ID = re.compile(r"[0-9a-f]{32}")  # a segment's files: <uuid, no dashes>.<component>


def footer_problem(path: Path) -> str | None:
    """None when `path` ends with a tantivy footer whose CRC-32 matches its contents."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            if size < 8:
                return f"{path.name} is cut short ({size} bytes)"
            f.seek(size - 8)
            length, magic = struct.unpack("<II", f.read(8))
            if magic != FOOTER_MAGIC or length + 8 > size:
                return f"{path.name} has lost its checksum (cut short or overwritten)"
            f.seek(size - 8 - length)
            try:
                footer = json.loads(f.read(length))
                expected = int(footer["crc"])
            except (ValueError, KeyError, TypeError):
                return f"{path.name}'s checksum record is damaged"
            f.seek(0)
            crc, left = 0, size - 8 - length
            while left:
                block = f.read(min(_CHUNK, left))
                if not block:
                    return f"{path.name} is cut short"
                crc = zlib.crc32(block, crc)
                left -= len(block)
    except OSError as exc:
        return f"{path.name} cannot be read ({exc.strerror or exc})"
    return None if crc == expected else f"{path.name} is damaged (its checksum does not match)"


def segment_files(directory: Path) -> list[Path] | str:
    """The files of the segments meta.json names, or why meta.json itself is unusable."""
    try:
        meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        segments = meta["segments"]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError):
        return "meta.json is damaged"
    files: list[Path] = []
    for seg in segments:
        try:
            sid = str(seg["segment_id"]).replace("-", "")
        except (KeyError, TypeError):
            return "meta.json names a segment without its id"
        files += [directory / f"{sid}.{ext}" for ext in COMPONENTS]
        deletes = seg.get("deletes")
        if deletes:
            files.append(directory / f"{sid}.{deletes['opstamp']}.del")
    return files


def leftovers(directory: Path) -> list[Path]:
    """Segment files no commit names: what a merge that failed (a full disk) left half
    written. Only while no writer works here are they garbage: a merge in progress writes
    such files too (the caller holds tantivy's writer lock)."""
    files = segment_files(directory)
    if isinstance(files, str):
        return []  # meta.json unusable: the index is rebuilt, not tidied
    named = {path.name.split(".")[0] for path in files}
    try:
        found = list(directory.iterdir())
    except OSError:
        return []
    stems = ((path, path.name.split(".")[0]) for path in found)
    return [path for path, stem in stems if _SEGMENT_ID.fullmatch(stem) and stem not in named]


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def problems(directory: Path, *, full: bool = False, remember: bool = True) -> list[str]:
    """What is wrong with the index in `directory` (empty: nothing found). Files already
    checked and unchanged are skipped unless `full`; files found whole are remembered."""
    files = segment_files(directory)
    if isinstance(files, str):
        return [files]
    record_path = directory / CHECKED
    try:
        record = {} if full else json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = {}
    found: list[str] = []
    checked: dict[str, list[int]] = {}
    for path in files:
        if not path.exists():
            found.append(f"{path.name} is missing")
            continue
        stamp = _stamp(path)
        if record.get(path.name) == stamp:
            checked[path.name] = stamp
            continue
        problem = footer_problem(path)
        if problem:
            found.append(problem)
        else:
            checked[path.name] = stamp
    if remember and not found:
        tmp = record_path.with_name(CHECKED + f".{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(checked), encoding="utf-8")
            os.replace(tmp, record_path)
        except OSError:
            tmp.unlink(missing_ok=True)  # a read-only folder: checked again next time
    return found


def summary(found: list[str], shown: int = 3) -> str:
    """The problems in a line a person reads: the first few, and how many there are."""
    if len(found) <= shown:
        return "; ".join(found)
    return f"{len(found)} files damaged ({'; '.join(found[:shown])}; …)"
