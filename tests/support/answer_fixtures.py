"""A small history of real-looking pages on distinct topics, for the answer and context tests.

Each page has a few passages; each topic has facts that questions can ask for and that
a made-up sentence can contradict. Indexed with the real embedding model it takes a
second or two (the Python FAQ takes minutes on two busy cores).
"""

from __future__ import annotations

import zlib

from rewind.answers.packing import Evidence
from rewind.capture.ingest import PageInput, PassageInput

DAY = 86400.0
NOW = 1_763_800_000.0

PAGES = [
    {
        "url": "https://bakery.example/sourdough-starter",
        "title": "How to keep a sourdough starter alive",
        "visits": 3,
        "dwell": 420.0,
        "passages": [
            "A sourdough starter is a mix of flour and water that wild yeast and lactic acid "
            "bacteria ferment. Feed it once a day with equal weights of flour and water.",
            "Keep the starter at room temperature, around 24 degrees Celsius, while you bake "
            "often. In the fridge it only needs feeding once a week.",
            "A layer of grey liquid on top is called hooch. It means the starter is hungry; "
            "pour it off and feed the starter.",
        ],
    },
    {
        "url": "https://graphs.example/hnsw-pruning",
        "title": "Pruning neighbours in HNSW graphs",
        "visits": 1,
        "dwell": 300.0,
        "passages": [
            "HNSW builds a layered proximity graph for approximate nearest neighbour search. "
            "Each node keeps at most M neighbours per layer.",
            "The heuristic pruning rule keeps a candidate neighbour only if it is closer to "
            "the new node than to every neighbour already kept, which keeps diverse edges.",
        ],
    },
    {
        "url": "https://trams.example/lisbon-tram-28",
        "title": "Riding tram 28 in Lisbon",
        "visits": 2,
        "dwell": 200.0,
        "passages": [
            "Tram 28 crosses the old districts of Lisbon, from Martim Moniz to Campo de "
            "Ourique, through Graça, Alfama and Baixa.",
            "Board at Martim Moniz early in the morning to get a seat; later in the day the "
            "queue is often longer than an hour.",
        ],
    },
    {
        "url": "https://rust.example/borrow-checker",
        "title": "Understanding the Rust borrow checker",
        "visits": 4,
        "dwell": 900.0,
        "passages": [
            "The borrow checker enforces that a value has either one mutable reference or "
            "any number of shared references at a time, never both.",
            "Lifetimes tell the compiler how long references are valid, so that no reference "
            "outlives the value it points to.",
        ],
    },
    {
        "url": "https://python.example/gil",
        "title": "What is the global interpreter lock?",
        "visits": 1,
        "dwell": 150.0,
        "passages": [
            "The global interpreter lock, or GIL, is a mutex that lets only one thread run "
            "Python bytecode at a time in CPython.",
            "Because of the GIL, CPU-bound Python threads do not run in parallel; use "
            "multiprocessing to use several cores.",
        ],
    },
]


def page_input(p: dict, i: int) -> PageInput:
    return PageInput(
        url=p["url"],
        title=p["title"],
        passages=[PassageInput(p["title"], 0, 0.6)]
        + [PassageInput(t, j + 1, 0.7) for j, t in enumerate(p["passages"])],
        visited_at=NOW - (i + 1) * DAY,
        dwell_s=p["dwell"],
    )


def index_pages(engine) -> dict[str, str]:
    """Index PAGES (with their visit counts); returns {title: stored url}."""
    urls = {}
    for i, p in enumerate(PAGES):
        res = engine.index_page(page_input(p, i))
        for v in range(1, p["visits"]):
            engine.record_visit(p["url"], NOW - (i + 1) * DAY + v * 3600, 30.0)
        urls[p["title"]] = res.url
    return urls


def open_history(directory, embedder, model_dir):
    """A writable engine on `directory` holding PAGES, with the real embedding model."""
    from rewind.config import Settings
    from rewind.profile.engine import Rewind

    eng = Rewind.open(directory, Settings(), embedder=embedder, model_dir=model_dir)
    index_pages(eng)
    return eng


SOURDOUGH, HNSW, TRAM = (page["url"] for page in PAGES[:3])


def sources_for(history, query: str):
    """The sources a question would be answered from (5 passages, packed into 800 words)."""
    from rewind.answers import llm
    from rewind.answers.context import retrieve
    from rewind.answers.packing import pack

    found = retrieve(history, query, history.settings, k=5)
    return pack(found.evidence, 800, llm.WordTokenizer(), query, history.settings).sources


def number_of(sources, url: str) -> int:
    return next(s.n for s in sources if s.url == url)


def evidence(text: str, url: str = "https://a.example/1", score: float = 1.0, **kw) -> Evidence:
    """A history passage as retrieval would hand it to packing (visited two days ago)."""
    base = dict(
        kind="history",
        text=text,
        url=url,
        title=kw.pop("title", "A page"),
        score=score,
        page_id=zlib.crc32(url.encode()),
        domain=url.split("/")[2],
        visited_at=NOW - 2 * 86400,
        visit_count=2,
        dwell_s=300.0,
    )
    base.update(kw)
    return Evidence(**base)


def sentence(i: int, words: int = 12) -> str:
    """A sentence of made-up words, distinct for each i: for token counts, not meaning."""
    return " ".join(f"word{i}x{j}" for j in range(words)) + "."
