"""Commands over the store: index files, stats, pages, reindex, doctor.

This module must never hold logic the host needs: it parses, calls, prints.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from ..config import Settings
from ..errors import Code, RewindError
from ..humanize import ago
from . import reembed
from .common import Command, Progress, emit, open_engine

INDEXABLE = (".html", ".htm", ".xhtml", ".md", ".markdown", ".txt", ".text", ".rst")


def files_under(paths: list[str]) -> Iterator[tuple[Path, Path]]:
    """(file, root it was found under) for every indexable file named or inside a folder."""
    for name in paths:
        path = Path(name).expanduser()
        if not path.exists():
            raise RewindError(Code.NOT_FOUND, f"{name}: no such file or folder.")
        if path.is_dir():
            for f in sorted(path.rglob("*")):
                if f.is_file() and f.suffix.lower() in INDEXABLE:
                    yield f, path
        else:
            yield path, path.parent


def cmd_index(args: argparse.Namespace) -> int:
    from ..capture import urls
    from ..capture.extract import decode, document_for
    from ..capture.ingest import PageInput

    settings = Settings()
    if args.base_url:
        urls.normalize(args.base_url)  # a clear error before any work
    files = list(files_under(args.paths))
    if not files:
        raise RewindError(Code.NOT_FOUND, "No HTML, Markdown or text files found there.")
    failures = 0
    counts: dict[str, int] = {}
    show = Progress("indexing")
    with open_engine(args, writer=True) as eng:
        if eng.embedder() is None:
            print(f"warning: {eng.embedder_problem} Pages are stored for keyword search; "
                  "run `rewind reindex` once the model is installed.", file=sys.stderr)
        for i, (path, root) in enumerate(files):
            try:
                data = path.read_bytes()
                text = decode(data, str(path), settings.max_document_bytes)
                if args.base_url:
                    rel = path.relative_to(root).as_posix()
                    url = args.base_url.rstrip("/") + "/" + rel
                else:
                    url = path.resolve().as_uri()
                doc = document_for(path.name, text, fallback_title=path.stem)
                result = eng.index_page(PageInput(
                    url=url, title=doc.title, document=doc,
                    visited_at=path.stat().st_mtime, source="file"))
                counts[result.status] = counts.get(result.status, 0) + 1
                if result.skipped:  # the capture gate: say why, whatever the verbosity
                    print(f"not recorded: {result.url}: {result.skipped['why']}",
                          file=sys.stderr)
                elif args.verbose:
                    print(f"{result.status:9} {result.passages:3} passages  {result.url}")
            except RewindError as exc:
                if exc.code in (Code.STORE_LOCKED, Code.DISK_FULL, Code.STORE_CORRUPT):
                    raise
                failures += 1
                print(f"skipped {path}: {exc}", file=sys.stderr)
            show(i + 1, len(files))
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "nothing"
    emit(args, {"indexed": counts, "failed": failures},
         f"{len(files)} files: {summary}" + (f", {failures} skipped" if failures else ""))
    return 1 if failures else 0


def cmd_stats(args: argparse.Namespace) -> int:
    from ..native.handlers import profile_stats

    with open_engine(args, writer=False) as eng:
        stats = profile_stats(eng)
    last = stats["last_indexed"]
    human = (f"{stats['pages']} pages, {stats['passages']} passages, "
             f"{stats['storage_bytes'] / 1e6:.1f} MB in {stats['data_dir']}\n"
             f"embedding model: {stats['embedding_model']}"
             + ("" if stats["embedder_ready"] else f" (unavailable: {stats['embedder_problem']})")
             + _job_line(stats["reembed"])
             + f"\nanswering model: {stats['answer_model'] or 'none: answers are extracts'}"
             + (f"\nlast indexed: {last['title'] or last['url']} ({ago(last['at'])})"
                if last else "") + "\n" + _storage_lines(stats))
    emit(args, stats, human)
    return 0


def _job_line(job: dict | None) -> str:
    if not job or job.get("done") is None:
        return ""
    return (f"\nre-embedding with {job['model']}: {job['done']}/{job['total']} passages, "
            f"{job['state']}" + (f" ({job['problem']})" if job.get("problem") else ""))


def _storage_lines(stats: dict) -> str:
    parts, ret, enc = stats["storage"], stats["retention"], stats["encryption"]

    def mb(n: float) -> str:
        return f"{n / 1e6:.1f} MB"

    age = f"{ret['max_age_days']} days" if ret["max_age_days"] else "no age limit"
    size = f"{ret['max_mb']} MB" if ret["max_mb"] else "no size limit"
    return (f"text {mb(parts['text_bytes'])}, vectors {mb(parts['vector_bytes'])}, "
            f"text index {mb(parts['text_index_bytes'])}; database in use "
            f"{mb(parts['database_bytes'])}, all files {mb(parts['file_bytes'])}\n"
            f"retention: {age}, {size}\n"
            + (f"encrypted at rest, key in {enc['key']}" if enc["encrypted"]
               else "NOT encrypted at rest"))


def cmd_pages(args: argparse.Namespace) -> int:
    with open_engine(args, writer=False) as eng:
        pages = eng.list_pages(args.offset, args.limit)
    human = "\n".join(f"{ago(p['last_visit']):>16}  {p['visit_count']:3}x  "
                      f"{(p['title'] or '')[:60]:60}  {p['url']}" for p in pages)
    emit(args, pages, human or "No pages yet.")
    return 0


REPAIR_HINT = ("`rewind doctor --repair` copies what can be read into a new store (the damaged "
               "file is kept aside); or restore a backup with `rewind import`.")


def _repair(args: argparse.Namespace) -> list:
    """--repair: a store that fails SQLite's check is salvaged into a new one."""
    import sqlite3

    from .. import config
    from ..checks import Check
    from ..index.store.salvage import salvage

    db = config.data_dir(override=args.data_dir) / "rewind.db"
    if not db.exists():
        return [Check("repair", True, "no store here: nothing to repair")]
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            whole = [r[0] for r in con.execute("PRAGMA quick_check")] == ["ok"]
        finally:
            con.close()
    except sqlite3.DatabaseError:
        whole = False
    if whole:
        return [Check("repair", True, "the store passes SQLite's check: nothing to repair")]
    report = salvage(db)
    return [Check("repair", True, "a new store made of what could be read: "
                  + "; ".join(report.lines()))]


def cmd_doctor(args: argparse.Namespace) -> int:
    from ..checks import Check, helper_memory_check, profile_checks

    checks: list[Check] = _repair(args) if args.repair else []
    try:
        eng = open_engine(args, writer=True)
    except RewindError as exc:
        if exc.code == Code.STORE_CORRUPT:
            eng = None
            checks.append(Check("store", False, exc.message, REPAIR_HINT))
        elif exc.code == Code.STORE_LOCKED:
            eng = open_engine(args, writer=False)  # the host is writing: check what we can
        else:
            raise
    if eng is not None:
        with eng:
            checks += profile_checks(eng)
    from ..install import register

    checks += register.doctor_checks()
    checks.append(helper_memory_check())
    ok = all(c.ok for c in checks)
    human = "\n".join(f"{'ok  ' if c.ok else 'FAIL'}  {c.name}: {c.detail}"
                      + (f"\n      fix: {c.fix}" if c.fix and not c.ok else "") for c in checks)
    emit(args, {"ok": ok, "checks": [c.to_dict() for c in checks]}, human)
    return 0 if ok else 1


def register(command: Command) -> None:
    sp = command("index", cmd_index, "index HTML, Markdown or text files and folders")
    sp.add_argument("paths", nargs="+", metavar="PATH")
    sp.add_argument("--base-url", help="URL of the folder: a page's URL is this + its path")
    sp.add_argument("-v", "--verbose", action="store_true")

    command("stats", cmd_stats, "what is stored, where, with which model")
    sp = command("pages", cmd_pages, "list remembered pages, latest first")
    sp.add_argument("--offset", type=int, default=0)
    sp.add_argument("--limit", type=int, default=50)
    reembed.register_reindex(command)
    sp = command("doctor", cmd_doctor, "check models, store and indexes; non-zero exit if broken")
    sp.add_argument("--repair", action="store_true", help="a damaged store: copy what can be "
                    "read into a new one (the damaged file is kept aside)")
