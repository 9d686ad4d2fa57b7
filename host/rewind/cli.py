"""`rewind`: the command line for debugging and scripting, over the same engine the host uses.

Human-readable output by default, `--json` for scripts, progress on stderr,
and exit codes: 0 ok, 1 a problem the message explains, 2 bad usage.
This module must never hold logic the host needs: it parses, calls, prints.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__, config, profile_settings
from .config import Settings
from .errors import Code, RewindError
from .humanize import ago, duration
from .index import models

if TYPE_CHECKING:
    from .engine import Rewind

INDEXABLE = (".html", ".htm", ".xhtml", ".md", ".markdown", ".txt", ".text", ".rst")


# ---- helpers ----------------------------------------------------------------------------

def parse_when(value: str) -> float:
    """'2026-11-01', an ISO datetime, or a span back from now: '90m', '24h', '7d', '2w'."""
    v = value.strip()
    units = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
    if v[:-1].isdigit() and v[-1:] in units:
        return time.time() - int(v[:-1]) * units[v[-1]]
    try:
        return datetime.fromisoformat(v).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a date: use YYYY-MM-DD, an ISO time, or 7d / 24h / 90m") from None


class Progress:
    """A one-line progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.tty or not total:
            return
        width = 30
        fill = int(width * done / total)
        sys.stderr.write(f"\r{self.label} [{'#' * fill}{'.' * (width - fill)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def emit(args: argparse.Namespace, data: object, human: str) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=None) if args.json else human)


def open_engine(args: argparse.Namespace, *, writer: bool) -> Rewind:
    """The profile's engine, with the settings the person saved for it (the options page)."""
    from .engine import Rewind

    directory = config.data_dir(override=args.data_dir)
    return Rewind.open(directory, profile_settings.apply(Settings(), directory), writer=writer)


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


# ---- commands ---------------------------------------------------------------------------

def cmd_index(args: argparse.Namespace) -> int:
    from .capture import urls
    from .capture.extract import decode, document_for
    from .capture.ingest import PageInput

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
                if args.verbose:
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


def cmd_search(args: argparse.Namespace) -> int:
    from .search import SearchQuery

    with open_engine(args, writer=False) as eng:
        resp = eng.search(SearchQuery(args.query, args.mode, args.limit, args.since,
                                      args.until, args.domain))
    if args.json:
        data = resp.to_dict()
        data["results"] = [{k: h[k] for k in (
            "url", "title", "score", "confidence", "snippet", "highlights", "passage",
            "visited_at", "visit_count", "dwell_s", "similarity", "keyword_score")}
            for h in data["results"]]
        print(json.dumps(data, ensure_ascii=False))
        return 0
    if resp.notice:
        print(f"note: {resp.notice}", file=sys.stderr)
    if not resp.results:
        print("No matches in your history.")
        return 0
    bold = sys.stdout.isatty()
    for n, hit in enumerate(resp.results, 1):
        snippet = hit.snippet
        for a, b in reversed(hit.highlights):
            mark = ("\033[1m", "\033[0m") if bold else ("[", "]")
            snippet = snippet[:a] + mark[0] + snippet[a:b] + mark[1] + snippet[b:]
        print(f"{n:2}. {hit.title or hit.url}  ({hit.confidence})")
        print(f"    {hit.url}")
        print(f"    visited {ago(hit.visited_at)}, read for {duration(hit.dwell_s)}, "
              f"{hit.visit_count} visit{'s' if hit.visit_count != 1 else ''}")
        print(f"    {snippet}")
    print(f"({resp.mode}, {resp.took_ms:.0f} ms)", file=sys.stderr)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    with open_engine(args, writer=False) as eng:
        stats = eng.stats()
    last = stats["last_indexed"]
    human = (f"{stats['pages']} pages, {stats['passages']} passages, "
             f"{stats['storage_bytes'] / 1e6:.1f} MB in {stats['data_dir']}\n"
             f"embedding model: {stats['embedding_model']}"
             + ("" if stats["embedder_ready"] else f" (unavailable: {stats['embedder_problem']})")
             + (f"\nlast indexed: {last['title'] or last['url']} ({ago(last['at'])})"
                if last else ""))
    emit(args, stats, human)
    return 0


def cmd_pages(args: argparse.Namespace) -> int:
    with open_engine(args, writer=False) as eng:
        pages = eng.list_pages(args.offset, args.limit)
    human = "\n".join(f"{ago(p['last_visit']):>16}  {p['visit_count']:3}x  "
                      f"{(p['title'] or '')[:60]:60}  {p['url']}" for p in pages)
    emit(args, pages, human or "No pages yet.")
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    if args.action == "pull":
        return cmd_models_pull(args)
    if args.name:
        raise RewindError(Code.BAD_REQUEST, f"`rewind models list` takes no name ({args.name}).",
                          "Use `rewind models pull NAME` to download one.")
    rows = models.describe(config.model_dir(), verify=args.verify)
    human = "\n".join(
        f"{'installed' if r['installed'] else 'missing  '}  {r['kind']:9} {r['name']:28} "
        f"{r['description']}" for r in rows)
    emit(args, rows, human + f"\n(model directory: {config.model_dir()})")
    return 0


def cmd_models_pull(args: argparse.Namespace) -> int:
    from .index import download

    if not args.name:
        raise RewindError(Code.BAD_REQUEST, "Which model? `rewind models pull NAME`.",
                          "`rewind models` lists the names.")
    spec = models.load_specs().get(args.name)
    mirror = download.mirror_setting(args.mirror)
    pulled = download.pull(spec, config.model_dir(), mirror, progress=download.Bar())
    rows = [{"file": p.name, "path": str(p.path), "bytes": p.bytes, "sha256": p.sha256 or None,
             "checked_against_known_sha256": p.verified, "already_installed": p.skipped}
            for p in pulled]
    human = "\n".join(
        f"{'kept     ' if p.skipped else 'installed'}  {p.path}  ({p.bytes / 1e6:,.1f} MB"
        + ("" if p.skipped or p.verified else f", sha256 {p.sha256} recorded: models.json has "
           "none to check it against") + ")" for p in pulled)
    emit(args, {"model": spec.name, "files": rows}, human)
    return 0


def _page_context(name: str):
    """`--page FILE`: a saved page (HTML, Markdown, text) as the current tab's text."""
    from .answers.context import TabContext
    from .capture.extract import decode, document_for

    path = Path(name).expanduser()
    if not path.is_file():
        raise RewindError(Code.NOT_FOUND, f"{name}: no such file.")
    text = decode(path.read_bytes(), str(path), Settings().max_document_bytes)
    doc = document_for(path.name, text, fallback_title=path.stem)
    return TabContext("\n\n".join(b.text for b in doc.blocks), path.resolve().as_uri(),
                      doc.title)


def _budget(value: str) -> int:
    n = int(value)
    if not 1 <= n <= Settings().max_token_budget:
        raise argparse.ArgumentTypeError(
            f"the budget must be 1..{Settings().max_token_budget} tokens")
    return n


def cmd_ask(args: argparse.Namespace) -> int:
    import dataclasses

    from .answers.answer import Answerer

    provided = _page_context(args.page) if args.page else None
    tty = sys.stdout.isatty()
    with open_engine(args, writer=False) as eng:
        if args.model:
            eng.settings = dataclasses.replace(eng.settings, llm_model=args.model)
        if args.facets:
            eng.settings = dataclasses.replace(eng.settings, answer_facets=True)
        answerer = Answerer(eng)
        dim = ("\033[2m", "\033[0m") if tty else ("", "")  # the unchecked words, dimmed

        def stream(text: str) -> None:
            print(f"{dim[0]}{text}{dim[1]}", end="", flush=True)

        try:
            r = answerer.ask(args.question, provided=provided, budget=args.budget,
                             on_chunk=None if args.json else stream,
                             extractive=args.extractive)
        finally:
            answerer.close()
    if args.json:
        out = r.to_dict()
        out["sources"] = [{k: s[k] for k in ("n", "url", "title", "kind", "visited_at",
                                             "visit_count", "dwell_s")} for s in r.sources]
        print(json.dumps(out, ensure_ascii=False))
        return 0
    if r.raw_answer.strip() != r.answer.strip():
        print("\n\nChecked against your pages:")
        print(r.answer)
    else:
        print()
    if r.unsupported:
        print("\nLeft out (no page you read supports it):")
        for sentence in r.unsupported:
            print(f"  - {sentence}")
    if r.sources:
        print("\nSources:")
        for src in r.sources:
            when = (f" (visited {ago(src['visited_at'])}, {src['visit_count']} visit"
                    f"{'s' if src['visit_count'] != 1 else ''}, read {duration(src['dwell_s'])})"
                    if src["kind"] == "history" and src["visited_at"] else "")
            print(f"  [{src['n']}] {src['title'] or src['url']}\n      {src['url']}{when}")
    if r.facets:
        print("\nFacets (importance, context tokens):")
        for f in r.facets:
            print(f"  - {f['question']} ({f['importance']:.2f}, {f['tokens']})")
    if r.notice:
        print(f"note: {r.notice}", file=sys.stderr)
    t = r.timings
    first = f", first token {t['first_token_ms']:.0f} ms" if t.get("first_token_ms") else ""
    split = f", facets {t['facets_ms']:.0f} ms" if t.get("facets_ms") else ""
    print(f"(retrieval {t['retrieval_ms']:.0f} ms{split}{first}, total {t['total_ms']:.0f} ms; "
          f"{r.model or 'no language model: extracted'})", file=sys.stderr)
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    from .answers.answer import Answerer

    raw = None
    if args.raw:
        raw = sys.stdin.read() if args.raw == "-" else Path(args.raw).expanduser().read_text(
            encoding="utf-8", errors="replace")
    with open_engine(args, writer=False) as eng:
        built = Answerer(eng).build_context(args.query, raw, args.budget)
    if args.json:
        print(json.dumps(built.to_dict(), ensure_ascii=False))
        return 0
    print(built.text)
    n_items, n_sources = len(built.items), len(built.sources)
    print(f"({built.total_tokens} of {built.budget} tokens, {n_items} passage"
          f"{'s' if n_items != 1 else ''} from {n_sources} source"
          f"{'s' if n_sources != 1 else ''}, counted with {built.tokenizer}; "
          f"{built.took_ms:.0f} ms)", file=sys.stderr)
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    with open_engine(args, writer=True) as eng:
        result = eng.reindex(args.model, progress=Progress("embedding"))
    emit(args, result, f"re-embedded {result['embedded_passages']} passages; text index has "
         f"{result['text_docs']} passages")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from .checks import Check, profile_checks

    checks: list[Check] = []
    try:
        eng = open_engine(args, writer=True)
    except RewindError as exc:
        if exc.code != Code.STORE_LOCKED:
            raise
        eng = open_engine(args, writer=False)  # the host is writing: check what we can read
    with eng:
        checks += profile_checks(eng)
    from .native import register

    checks += register.doctor_checks()
    ok = all(c.ok for c in checks)
    human = "\n".join(f"{'ok  ' if c.ok else 'FAIL'}  {c.name}: {c.detail}"
                      + (f"\n      fix: {c.fix}" if c.fix and not c.ok else "") for c in checks)
    emit(args, {"ok": ok, "checks": [c.to_dict() for c in checks]}, human)
    return 0 if ok else 1


def cmd_serve(args: argparse.Namespace) -> int:
    from .native import host

    return host.serve(args.origin, args.data_dir)


def cmd_send(args: argparse.Namespace) -> int:
    from .native import client

    raw = Path(args.raw).read_bytes() if args.raw else None
    messages = None
    if args.message:
        try:
            messages = [json.loads(m) for m in args.message]
        except json.JSONDecodeError as exc:
            raise RewindError(Code.BAD_JSON, f"Not JSON: {exc}.",
                              'Quote it for the shell: rewind send \'{"type":"hello"}\'') from None
    return client.send(messages, raw, args.profile, args.data_dir, args.timeout)


# ---- parser -----------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rewind", description="Rewind: search what you have read.")
    p.add_argument("--version", action="version", version=f"rewind {__version__}")
    p.add_argument("--data-dir", help="the profile's data directory (or $REWIND_DATA_DIR)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, func, help_: str, json_flag: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=func)
        if json_flag:
            sp.add_argument("--json", action="store_true", help="machine-readable output")
        return sp

    sp = command("index", cmd_index, "index HTML, Markdown or text files and folders")
    sp.add_argument("paths", nargs="+", metavar="PATH")
    sp.add_argument("--base-url", help="URL of the folder: a page's URL is this + its path")
    sp.add_argument("-v", "--verbose", action="store_true")

    sp = command("search", cmd_search, "search your history")
    sp.add_argument("query")
    sp.add_argument("--mode", choices=("hybrid", "semantic", "keyword"), default="hybrid")
    sp.add_argument("--limit", type=int, default=Settings().default_limit)
    sp.add_argument("--since", type=parse_when)
    sp.add_argument("--until", type=parse_when)
    sp.add_argument("--domain")

    command("stats", cmd_stats, "what is stored, where, with which model")
    sp = command("pages", cmd_pages, "list remembered pages, latest first")
    sp.add_argument("--offset", type=int, default=0)
    sp.add_argument("--limit", type=int, default=50)
    sp = command("ask", cmd_ask, "answer a question from your history, citing the pages")
    sp.add_argument("question")
    sp.add_argument("--budget", type=_budget, help="tokens of sources given to the model")
    sp.add_argument("--page", metavar="FILE", help="a page to ask about with your history")
    sp.add_argument("--model", help="the language model to use (see `rewind models`)")
    sp.add_argument("--extractive", action="store_true",
                    help="no language model: answer with the best sentences of your pages")
    sp.add_argument("--facets", action="store_true",
                    help="split the question into sub-questions first (needs a capable "
                    "language model; see `rewind models`)")
    sp = command("context", cmd_context,
                 "relevant history packed into a token budget, for other local AI tools")
    sp.add_argument("query")
    sp.add_argument("--budget", type=_budget, default=Settings().context_token_budget,
                    help="tokens, counted with the answering model's tokenizer")
    sp.add_argument("--raw", metavar="FILE", help="raw context to rank with the history "
                    "(- for stdin)")
    sp = command("models", cmd_models, "list models (`models pull NAME` downloads one)")
    sp.add_argument("action", nargs="?", choices=("list", "pull"), default="list")
    sp.add_argument("name", nargs="?", help="the model to pull")
    sp.add_argument("--verify", action="store_true", help="check every file's sha256")
    sp.add_argument("--mirror", help="where to download from (or $REWIND_MODEL_MIRROR); "
                    "a URL template with {repo} and {path}, see docs/answers.md")
    sp = command("reindex", cmd_reindex, "rebuild derived indexes (re-embed with --model)")
    sp.add_argument("--model", help="embedding model to switch to (see `rewind models`)")
    command("doctor", cmd_doctor, "check models, store and indexes; non-zero exit if broken")

    sp = command("serve", cmd_serve, "run the native messaging host (browsers start this)",
                 json_flag=False)
    sp.add_argument("origin", nargs="?", default="", help="the caller's origin (from Chrome)")
    sp.add_argument("rest", nargs="*", help=argparse.SUPPRESS)  # Chrome may add a window id
    sp = command("send", cmd_send, "talk to the host exactly as the browser does",
                 json_flag=False)
    sp.add_argument("message", nargs="*", help="JSON request(s)")
    sp.add_argument("--raw", help="send this file's bytes as they are (framing tests)")
    sp.add_argument("--profile", default=config.DEFAULT_PROFILE)
    sp.add_argument("--timeout", type=float, default=30.0)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RewindError as exc:
        print(f"rewind: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  {exc.hint}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `rewind search ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
