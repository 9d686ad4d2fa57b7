"""`rewind mcp`: the Model Context Protocol server over stdio, on the official Python SDK.

Five read-only tools (search_history, read_page, build_context, ask_history,
recent_pages), each a thin wrapper over tools.Library: its description and input schema
are written for a model to choose and call it well (what it is for, when to use it, what
each argument takes); its result is text for the model (page text fenced as quoted data)
plus the same as structured content. The client is the one named in the command
(`--client`, which the pasted configuration carries), else the name the tool reports
when it connects. Errors (access off, a page not in the scope, a bad time) come back as
tool errors whose text says what happened and what to do.
Nothing here can change settings, capture rules or the store: there are no write tools.
This module must never write to stdout (the protocol owns it) or log page text.
(No `from __future__ import annotations`: the SDK reads the tools' annotations, some of
which name values local to `build`, at registration.)
"""

from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from .. import __version__
from ..config import Settings
from ..errors import RewindError
from ..search_modes import DEFAULT_MODE, Mode
from . import access
from .render import NOTE
from .tools import Library, Reply

INSTRUCTIONS = (
    "Rewind is the person's private, local memory of the web pages they have read in their "
    "browser. These tools search and read it; they cannot change anything. Use them when "
    "the person refers to something they read, saw or looked up before. The person chose "
    "which part of their history this tool may see (some sites, a time window): a page "
    "outside it is simply not there. " + NOTE + " Cite pages by their URL."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False,
                            idempotent_hint=True, open_world_hint=False)
WHEN = ("a date (2026-11-01), an ISO date-time (2026-11-01T14:00), or a span back from now "
        "(90m, 24h, 7d, 2w)")

Query = Annotated[str, Field(min_length=1, max_length=Settings().max_query_chars)]


def client_of(ctx: Context | None, fixed: str | None) -> str:
    """The client this call comes from: `--client`, else the name it reported."""
    if fixed:
        return fixed
    try:
        params = ctx.session.client_params if ctx is not None else None
        name = params.client_info.name if params is not None else ""
        return access.client_id(name) if name else "unknown"
    except (RewindError, AttributeError):
        return "unknown"


def result(reply: Reply) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=reply.text)],
                          structured_content=reply.data, is_error=False)


def build(library: Library, client: str | None) -> MCPServer:
    """The server with its five tools over `library`; `client`: the id from `--client`."""
    app = MCPServer("rewind", title="Rewind: your reading history", version=__version__,
                    instructions=INSTRUCTIONS, log_level="WARNING")
    budget_max = Settings().max_token_budget

    def run(ctx: Context | None, tool: str, query: str | None, body) -> CallToolResult:
        try:
            return result(library.call(client_of(ctx, client), tool, query, body))
        except RewindError as exc:
            raise ToolError(str(exc)) from None

    @app.tool(annotations=READ_ONLY)
    def search_history(
        query: Annotated[Query, Field(description=(
            "What to look for: a question, a topic in a few words, or words remembered "
            "from the page (a name, an error message)."))],
        mode: Annotated[Mode, Field(description=(
            "hybrid (default) suits almost every search; keyword for exact remembered "
            "words, names or codes; semantic to match by meaning only."))] = DEFAULT_MODE,
        since: Annotated[str | None, Field(description=(
            f"Only pages last read at or after this time: {WHEN}."))] = None,
        until: Annotated[str | None, Field(description=(
            f"Only pages last read before this time: {WHEN}."))] = None,
        site: Annotated[str | None, Field(description=(
            "Only pages of this site and its subdomains, e.g. docs.python.org."))] = None,
        limit: Annotated[int, Field(ge=1, le=25, description="How many pages at most.")] = 8,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Search the web pages the person has read (their browsing history, kept by
        Rewind on their computer) by meaning and by words. Use it first when the person
        mentions something they read before ("that article about...", "the docs I was
        reading"). Returns the best-matching pages: title, URL, when last read, how well
        it matches, and a short snippet. Then use read_page to read one in full, or
        build_context for passages packed into a token budget."""
        return run(ctx, "search_history", query, lambda view, _a: library.search_history(
            view, query, mode, since, until, site, limit))

    @app.tool(annotations=READ_ONLY)
    def read_page(
        url: Annotated[str, Field(min_length=1, max_length=Settings().max_url_chars,
                                  description="The page's URL, exactly as search_history, "
                                  "recent_pages or build_context gave it.")],
        max_tokens: Annotated[int, Field(ge=50, le=budget_max, description=(
            "Most tokens of page text to return (counted with Rewind's answering model's "
            "tokenizer)."))] = 1500,
        start: Annotated[int, Field(ge=1, description=(
            "The passage to start from (1 = the beginning); a cut-off result says which "
            "number to continue with."))] = 1,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Read a page from the person's history: its stored text, passage by passage in
        page order, up to max_tokens. Rewind keeps the text it saw when the person read
        the page (not the live page). Use it after search_history or recent_pages when
        the snippet is not enough."""
        return run(ctx, "read_page", url, lambda view, _a: library.read_page(
            view, url, max_tokens, start))

    @app.tool(annotations=READ_ONLY)
    def build_context(
        query: Annotated[Query, Field(description=(
            "The question or task the context is for."))],
        token_budget: Annotated[int, Field(ge=1, le=budget_max, description=(
            "The most tokens the context may take (counted with Rewind's answering "
            "model's tokenizer); never exceeded."))] = 1000,
        raw_context: Annotated[str | None, Field(
            max_length=Settings().max_context_chars, description=(
                "Optional text you already have (a document, a draft): it is ranked with "
                "the history and its best passages are packed alongside."))] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Pack the passages of the person's history most relevant to a query into a
        token budget, as numbered sources ([Source 1], [Source 2], ...) each with its
        title, URL and when it was read: a ready context to reason over and cite. The
        structured result lists the items used and their token counts."""
        return run(ctx, "build_context", query, lambda view, _a: library.build_context(
            view, query, token_budget, raw_context))

    @app.tool(annotations=READ_ONLY)
    def ask_history(
        question: Annotated[Query, Field(description="The question, in plain words.")],
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Ask Rewind to answer a question from the person's history: a short answer
        whose every sentence is checked against the page it cites, with the sources. If
        the history does not hold the answer it says so ("I couldn't find that in your
        history.") rather than guess. Prefer build_context when you want to reason over
        the passages yourself."""
        return run(ctx, "ask_history", question, lambda view, a: library.ask_history(
            view, question, a.llm))

    @app.tool(annotations=READ_ONLY)
    def recent_pages(
        since: Annotated[str, Field(description=(
            f"From this time: {WHEN}."))] = "1d",
        until: Annotated[str | None, Field(description=(
            f"Until this time (default: now): {WHEN}."))] = None,
        site: Annotated[str | None, Field(description=(
            "Only pages of this site and its subdomains."))] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="How many pages at most.")]
        = 20,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """List the pages the person read in a span of time, the most recent first:
        title, URL, when last read, visits and reading time. Use it for "what was I
        reading yesterday / this week"."""
        span = f"{since}..{until or 'now'}" + (f" {site}" if site else "")
        return run(ctx, "recent_pages", span, lambda view, _a: library.recent_pages(
            view, since, until, site, limit))

    return app


def serve(library: Library, client: str | None) -> None:
    """Serve over stdin/stdout until the client closes them."""
    app = build(library, client)
    try:
        app.run("stdio")
    finally:
        library.close()
