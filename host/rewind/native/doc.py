"""PROTOCOL.md's tables of numbers, written from the code that enforces them.

The field limits, the settings a person may change and the lanes are drawn from Settings
(its knobs), the request table and the dispatch table, between `<!-- generated: NAME -->`
and `<!-- /generated -->` markers; tests/native/test_doc.py fails when the file and the code
disagree, and `python -m rewind.native.doc` rewrites the file.
This module must never change anything in PROTOCOL.md outside the markers.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .. import config
from ..config import Settings
from .framing import MAX_SAFE_INT
from .identity import REPO_ROOT

PROTOCOL_MD = REPO_ROOT / "PROTOCOL.md"
_BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n)(.*?)(<!-- /generated -->)", re.S)


def _n(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:g}"


def limits_table(s: Settings) -> str:
    rows = [
        ("`id` (string)", "1–64 printable ASCII characters (0x20–0x7E)"),
        ("`id` (integer)", f"0 … {MAX_SAFE_INT:,} (2^53 − 1)"),
        ("URLs (`url`, `page.url`, `page_url`)", f"{_n(s.max_url_chars)} characters"),
        ("`page.title`, `page_title`", f"{_n(s.max_title_chars)} characters"),
        ("`page.passages`", f"at most {s.max_passages_per_page} items, the title passage "
                            "included"),
        ("`page.passages[].text`", f"{_n(s.max_request_passage_chars)} characters (the host "
                                   f"keeps the first {_n(s.max_passage_chars)})"),
        ("`page.text`", f"{_n(s.max_page_text_chars)} characters"),
        ("`query`, `question`", f"1–{_n(s.max_query_chars)} characters"),
        ("`page_text`, `raw_context`", f"{_n(s.max_context_chars)} characters"),
        ("`token_budget`", f"1 … {_n(s.max_token_budget)}"),
        ("`search.limit`", f"1 … {s.max_limit}"),
        ("`list_pages.limit`", f"1 … {s.max_list_limit}"),
        ("`import_history.visits`", f"at most {_n(s.max_history_visits)} items"),
        ("`domain`", "1–253 characters"),
        ("times (`visited_at`, `since`, `until`)", "seconds since 1970 (float), 0 … 1e11"),
        ("`dwell_s`", "seconds, 0 … 1e7"),
        ("`profile`", "1–64 characters of `A-Z a-z 0-9 _ -`"),
    ]
    return _table(("Field", "Limit"), rows)


def settings_table() -> str:
    rows = []
    for name, entry in config.user_schema().items():
        kind = entry["type"]
        if kind == "choice":
            what = ", ".join(f'`"{c}"`' for c in entry["choices"])
        elif kind == "bool":
            what = "true, false"
        elif kind == "str":
            what = (f"`{entry['pattern']}`".replace("|", "\\|") if "pattern" in entry
                    else "text")
        else:
            what = f"{_n(entry['min'])} … {_n(entry['max'])}"
        default = str(entry["default"]).lower() if kind == "bool" else (
            f'"{entry["default"]}"' if kind in ("choice", "str") else _n(entry["default"]))
        rows.append((f"`{name}`", {"choice": "string", "str": "string"}.get(kind, kind), what,
                     default, entry["doc"].replace("|", "\\|")))
    return _table(("Key", "Type", "Range", "Default", "What it does"), rows)


def lanes_table(s: Settings) -> str:
    from .handlers import HANDLERS  # the dispatch table names each request's lane

    threads = {"inline": "the reader thread", "write": "1, in arrival order",
               "read": f"{s.host_read_workers} (`Settings.host_read_workers`)", "slow": "1",
               "download": "1"}
    unknown = {h.lane for h in HANDLERS.values()} - threads.keys()
    if unknown:
        raise ValueError(f"lanes missing from PROTOCOL.md's table: {sorted(unknown)}")
    rows = [(lane, what, ", ".join(f"`{name}`" for name, h in HANDLERS.items() if h.lane == lane))
            for lane, what in threads.items()]
    return _table(("Lane", "Threads", "Requests"), rows)


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def blocks(s: Settings | None = None) -> dict[str, str]:
    s = s or Settings()
    return {"limits": limits_table(s), "settings": settings_table(), "lanes": lanes_table(s)}


def render(text: str, s: Settings | None = None) -> str:
    """`text` with every generated block replaced by what the code says."""
    want = blocks(s)
    return _BLOCK.sub(lambda m: m.group(1) + want[m.group(2)] + m.group(4), text)


def main(argv: list[str] | None = None) -> int:
    path = Path(argv[0]) if argv else PROTOCOL_MD
    text = path.read_text(encoding="utf-8")
    new = render(text)
    if new != text:
        path.write_text(new, encoding="utf-8")
        print(f"{path}: tables rewritten from the code")
    else:
        print(f"{path}: up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
