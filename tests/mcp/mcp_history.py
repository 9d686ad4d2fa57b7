"""A real history for the MCP server's tests: pages of the Python documentation (Debian's
python3.11-doc HTML), indexed with the real MiniLM model into an encrypted store, one of
them on a site the client's scope excludes and one read before its time window; and the
installed `rewind` command, run as a person runs it."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

DAY = 86400.0
PRIVATE = "notes.private.example"


@dataclass
class History:
    data_dir: Path
    urls: dict[str, str]  # name -> stored URL
    texts: list[str]  # every passage's text (the audit log must hold none of them)


# name -> (file under the docs' html folder, URL, days since last read)
PAGES = {
    "windows": ("faq/windows.html", "https://docs.python.org/3/faq/windows.html", 2),
    "gui": ("faq/gui.html", "https://docs.python.org/3/faq/gui.html", 1),
    "installed": ("faq/installed.html", "https://docs.python.org/3/faq/installed.html", 3),
    "private": ("tutorial/venv.html", f"https://{PRIVATE}/venv-notes", 1),
    "old": ("tutorial/floatingpoint.html",
            "https://docs.python.org/3/tutorial/floatingpoint.html", 100),
    "forget": ("tutorial/interpreter.html",
               "https://docs.python.org/3/tutorial/interpreter.html", 1),
}


def index_docs(data_dir: Path, docs: Path, embedder, model_dir: Path,
               pages: dict = PAGES) -> History:
    from rewind.capture.extract import decode, document_for
    from rewind.capture.ingest import PageInput
    from rewind.config import Settings
    from rewind.profile.engine import Rewind

    urls, texts = {}, []
    now = time.time()
    with Rewind.open(data_dir, Settings(), embedder=embedder, model_dir=model_dir) as eng:
        for name, (rel, url, days) in pages.items():
            path = docs / rel
            text = decode(path.read_bytes(), str(path), Settings().max_document_bytes)
            doc = document_for(path.name, text, fallback_title=path.stem)
            res = eng.index_page(PageInput(url=url, title=doc.title, document=doc,
                                           visited_at=now - days * DAY, dwell_s=120.0,
                                           source="file"))
            assert res.status == "new", res
            urls[name] = res.url
        for _pid, _page, p in eng.reader().passages_of(eng.reader().all_page_ids()):
            texts.append(p.text)
    return History(data_dir, urls, texts)


def rewind_cli(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    """The installed `rewind` command, as a person runs it."""
    return subprocess.run([str(Path(sys.executable).parent / "rewind"), "--data-dir",
                           str(data_dir), *args], capture_output=True, text=True,
                          timeout=300, check=False)
