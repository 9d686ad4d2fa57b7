"""Search: passages retrieved and fused once (retrieve.py, fusion.py), grouped into
ranked, diversified, explained pages (pages.py)."""

from .pages import Hit, SearchQuery, SearchResponse, search
from .retrieve import MODES, PassageHit, PassageQuery, Retrieved, Searcher

__all__ = ["MODES", "Hit", "PassageHit", "PassageQuery", "Retrieved", "SearchQuery",
           "SearchResponse", "Searcher", "search"]
