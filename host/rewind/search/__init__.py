"""Search: passages retrieved and fused once (retrieve.py, fusion.py), grouped into
ranked, diversified, explained pages (pages.py)."""

from .pages import Hit, SearchResponse, search
from .retrieve import PassageHit, PassageQuery, Retrieved, Searcher, SearchQuery

__all__ = ["Hit", "PassageHit", "PassageQuery", "Retrieved", "SearchQuery", "SearchResponse",
           "Searcher", "search"]
