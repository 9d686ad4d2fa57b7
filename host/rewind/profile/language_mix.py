"""The languages of a history, and whether to offer the multilingual model for them.

The text index counts pages per language (index/derived/text_index.py `language_mix`, each
page's language from index/derived/languages.py). When a meaningful share of the pages is not
in English and the store's model is not the multilingual one (and that model is installed), the
summary carries an offer the popup and options show ("42 % of your pages are German or
French: search them by meaning too"); switching re-embeds everything, so it starts only
when the person says so (the `reindex` request, like any change of model).
This module must never start a re-embedding itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tantivy

from ..config import Settings
from ..index.derived import languages
from ..index.derived.text_index import TextIndex
from ..models import installed, specs


def _names(codes: list[str]) -> str:
    names = [languages.name(c) for c in codes]
    if len(names) <= 2:
        return " or ".join(names)
    return ", ".join(names[:2]) + " or others"


def pages_per_language(ti: TextIndex) -> dict[str, int]:
    """Pages per language (languages.UNKNOWN when undetermined), most first: the text
    index puts the page's language on its first passage only, so a count is pages."""
    searcher = ti.searcher()
    out = {}
    for lang in sorted(ti.languages() | {languages.UNKNOWN}):
        n = searcher.search(tantivy.Query.term_query(ti.schema, "lang", lang), 1).count
        if n:
            out[lang] = n
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def summary(text_index: TextIndex, s: Settings, model_dir: Path,
            model_id: str) -> dict[str, Any]:
    """{pages: {code: n}, names: {code: name}, other_share, offer: {...} | None}, for the
    store whose vectors are of `model_id`."""
    try:
        text_index.reload()
        pages = pages_per_language(text_index)
    except Exception:  # noqa: BLE001 - a damaged or busy index: stats go on without the mix
        return {"pages": {}, "names": {}, "other_share": None, "offer": None}
    known = {k: v for k, v in pages.items() if k != languages.UNKNOWN}
    total = sum(known.values())
    others = {k: v for k, v in known.items() if k != "en"}
    share = sum(others.values()) / total if total else 0.0
    name, _, _dim = model_id.partition("@")
    offer = None
    if (total >= s.multilingual_offer_min_pages and share >= s.multilingual_offer_share
            and name != s.multilingual_model):
        try:
            spec = specs.embedding_spec(s.multilingual_model)
            ready = installed.status(spec, model_dir).installed
        except Exception:  # noqa: BLE001 - an unknown model name in the settings: no offer
            ready = False
        if ready:
            top = sorted(others, key=lambda k: -others[k])
            offer = {
                "model": spec.name, "dim": spec.dim, "share": round(share, 3),
                "languages": top,
                "text": f"{round(100 * share)} % of your pages are in {_names(top)}: "
                        "search them by meaning too with the multilingual model.",
                "cost": f"Everything you have read is embedded again in the background "
                        f"({sum(pages.values())} pages); search keeps working meanwhile.",
            }
    return {"pages": pages, "names": {k: languages.name(k) for k in pages},
            "other_share": round(share, 3) if total else None, "offer": offer}
