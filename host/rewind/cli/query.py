"""Commands that read the history for a person or a tool: search, ask, context.

This module must never hold logic the host needs: it parses, calls, prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..config import Settings
from ..errors import Code, RewindError
from ..humanize import ago, duration
from ..search_modes import DEFAULT_MODE, MODES
from .common import Command, open_engine, parse_when

CHECKING = "checking against your pages…"  # shown until the first checked words come


def cmd_search(args: argparse.Namespace) -> int:
    from ..search import SearchQuery

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


def _page_context(name: str):
    """`--page FILE`: a saved page (HTML, Markdown, text) as the current tab's text."""
    from ..answers.context import TabContext
    from ..capture.extract import decode, document_for

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

    from ..answers.answer import Answerer

    provided = _page_context(args.page) if args.page else None
    tty = sys.stdout.isatty()
    with open_engine(args, writer=False) as eng:
        if args.model:
            eng.settings = dataclasses.replace(eng.settings, llm_model=args.model)
        if args.facets:
            eng.settings = dataclasses.replace(eng.settings, answer_facets=True)
        answerer = Answerer(eng)
        dim = ("\033[2m", "\033[0m") if tty else ("", "")
        checking = not args.json and tty  # a line that the first checked words replace
        if checking:
            print(f"{dim[0]}{CHECKING}{dim[1]}", end="", flush=True)

        def stream(text: str) -> None:  # checked sentences only, as they are checked
            nonlocal checking
            if checking:
                print("\r\033[K", end="")
                checking = False
            print(text, end="", flush=True)

        def draft(text: str) -> None:  # --show-draft: the model's own words, unchecked
            print(f"{dim[0]}{text}{dim[1]}", end="", file=sys.stderr, flush=True)

        try:
            r = answerer.ask(args.question, provided=provided, budget=args.budget,
                             on_chunk=None if args.json else stream,
                             on_draft=draft if args.show_draft and not args.json else None,
                             extractive=args.extractive)
        finally:
            answerer.close()
    if checking:
        print("\r\033[K", end="")
    if args.json:
        out = r.to_dict()
        out["sources"] = [{k: s[k] for k in ("n", "url", "title", "kind", "visited_at",
                                             "visit_count", "dwell_s")} for s in r.sources]
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print()
    if r.unsupported:
        print("\nLeft out of the model's draft (no page you read supports it):")
        for sentence in r.unsupported:
            print(f"  - {sentence}")
    if r.sources:
        print("\nSources:" if r.supported or r.closest else "\nThe closest pages:")
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
    from ..answers.answer import Answerer

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


def register(command: Command) -> None:
    sp = command("search", cmd_search, "search your history")
    sp.add_argument("query")
    sp.add_argument("--mode", choices=MODES, default=DEFAULT_MODE)
    sp.add_argument("--limit", type=int, default=Settings().default_limit)
    sp.add_argument("--since", type=parse_when)
    sp.add_argument("--until", type=parse_when)
    sp.add_argument("--domain")
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
    sp.add_argument("--show-draft", action="store_true",
                    help="also print the model's own words as it writes them, unchecked "
                    "(on stderr; for debugging)")
    sp = command("context", cmd_context,
                 "relevant history packed into a token budget, for other local AI tools")
    sp.add_argument("query")
    sp.add_argument("--budget", type=_budget, default=Settings().context_token_budget,
                    help="tokens, counted with the answering model's tokenizer")
    sp.add_argument("--raw", metavar="FILE", help="raw context to rank with the history "
                    "(- for stdin)")
