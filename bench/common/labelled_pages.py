"""The labelled pages the content check is fitted and measured on (tests/data/sensitive_pages/).

Job: read every labelled page — private screens of each policy category and articles about
the same topics, in the languages people read — into `Page`s: id, label ("sensitive" or
"article"), category (a policy id, or "none" for an ordinary page that is not about any
of them, e.g. a forum read while signed in), language, site (the service or software the
page comes from: pages of one site are held out together), URL, title, passages, and the
page signals the extension would send with it (page_signals.py's fields).

Two formats live in the folder. `*.json`: a list of {id, label, category, url, title,
passages[, lang, site, signals]} (lang defaults to "en", site to the URL's host). `*.txt`,
easier to write in many languages:

    === payroll-de-slip | sensitive | payroll | de | site=lohnbuero-berger
    url: https://portal.lohnbuero-berger.de/abrechnungen/2025-10
    title: Entgeltabrechnung Oktober 2025
    signals: Abmelden | Mein Profil ; app=Nextcloud ; manifest ; editors=1
    --
    first passage, one line per block
    --
    second passage

`signals:` lists the page's controls (link and button labels, "href:logout" for a link's
last path segment), then `; app=NAME` (a name the page declares: application-name,
generator...), `; manifest` (it links a web app manifest) and `; editors=N` (text areas
one can type in). A page without the line sends no signals (as a file from `rewind index`).
Never: read anything outside the folder, or accept a page without an id, label or category.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
PAGES_DIR = ROOT / "tests" / "data" / "sensitive_pages"
LABELS = ("sensitive", "article")


class LabelledPageError(ValueError):
    """A labelled page file is malformed; the message names the file and the page."""


@dataclass(frozen=True)
class Page:
    id: str
    label: str  # "sensitive" | "article"
    category: str  # a policy category id, or "none"
    lang: str
    site: str
    url: str
    title: str
    passages: tuple[str, ...]
    signals: dict | None = field(default=None, compare=False)

    @property
    def sensitive(self) -> int:
        return int(self.label == "sensitive")

    def with_text(self, title: str, passages: tuple[str, ...]) -> Page:
        return Page(self.id, self.label, self.category, self.lang, self.site, self.url, title,
                    passages, self.signals)


def parse_signals(line: str, lang: str) -> dict:
    """`Abmelden | Mein Profil ; app=Nextcloud ; manifest ; editors=1` -> signals dict."""
    parts = [p.strip() for p in line.split(";")]
    controls = [c.strip() for c in parts[0].split("|") if c.strip()]
    out: dict = {"lang": lang, "controls": controls, "app": [], "manifest": False, "editors": 0}
    for p in parts[1:]:
        key, _, value = p.partition("=")
        key = key.strip()
        if key == "app":
            out["app"].append(value.strip())
        elif key == "manifest":
            out["manifest"] = True
        elif key == "editors":
            out["editors"] = int(value)
        elif key:
            raise ValueError(f"unknown signal {key!r}")
    return out


def _site_of(url: str) -> str:
    host = urlsplit(url).hostname or ""
    return host.removeprefix("www.")


def _from_json(path: Path) -> list[Page]:
    pages = []
    for raw in json.loads(path.read_text(encoding="utf-8")):
        lang = raw.get("lang", "en")
        sig = raw.get("signals")
        pages.append(Page(raw["id"], raw["label"], raw["category"], lang,
                          raw.get("site") or _site_of(raw["url"]), raw["url"], raw["title"],
                          tuple(raw["passages"]),
                          parse_signals(sig, lang) if isinstance(sig, str) else sig))
    return pages


def _from_text(path: Path) -> list[Page]:
    pages: list[Page] = []
    blocks = path.read_text(encoding="utf-8").split("\n=== ")
    for n, block in enumerate(blocks):
        if n == 0:
            if not block.startswith("=== "):
                continue  # comments before the first page
            block = block[4:]
        head, *rest = block.split("\n")
        where = f"{path.name}: page {head.split('|')[0].strip()!r}"
        fields = [f.strip() for f in head.split("|")]
        if len(fields) != 5 or not fields[4].startswith("site="):
            raise LabelledPageError(f"{where}: the header must be "
                                    "'=== id | label | category | lang | site=NAME'.")
        pid, label, category, lang, site = fields[0], fields[1], fields[2], fields[3], \
            fields[4][5:]
        meta: dict[str, str] = {}
        passages: list[list[str]] = []
        for line in rest:
            line = line.strip()
            if line.startswith("#") and not passages:
                continue
            if line == "--":
                passages.append([])
            elif not passages:
                if line:
                    key, sep, value = line.partition(":")
                    if not sep or key not in ("url", "title", "signals"):
                        raise LabelledPageError(f"{where}: unknown line {line[:40]!r}.")
                    meta[key] = value.strip()
            elif line:
                passages[-1].append(line)
        texts = tuple("\n".join(p) for p in passages if p)
        if not texts or "title" not in meta or "url" not in meta:
            raise LabelledPageError(f"{where}: needs url, title and at least one passage.")
        try:
            signals = parse_signals(meta["signals"], lang) if "signals" in meta else None
        except ValueError as exc:
            raise LabelledPageError(f"{where}: {exc}") from None
        pages.append(Page(pid, label, category, lang, site, meta["url"], meta["title"], texts,
                          signals))
    return pages


def load_pages(folder: Path = PAGES_DIR, categories: set[str] | None = None) -> list[Page]:
    """Every labelled page in `folder` (sorted by file name, then as written). `categories`:
    the ids a page may name besides "none" (checked when given)."""
    pages: list[Page] = []
    for f in sorted(folder.iterdir()):
        if f.suffix == ".json":
            pages += _from_json(f)
        elif f.suffix == ".txt":
            pages += _from_text(f)
    seen: set[str] = set()
    for p in pages:
        if p.id in seen:
            raise LabelledPageError(f"page id {p.id!r} is used twice.")
        seen.add(p.id)
        if p.label not in LABELS:
            raise LabelledPageError(f"{p.id}: label {p.label!r} is not one of {LABELS}.")
        if categories is not None and p.category not in categories | {"none"}:
            raise LabelledPageError(f"{p.id}: category {p.category!r} is not a policy id.")
    return pages
