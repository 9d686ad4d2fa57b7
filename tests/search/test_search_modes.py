"""The search modes are defined once, in host/rewind/search_modes.py: the host's search
request, the CLI and the MCP tool take them from there, and the extension's list (its
settings and the side panel's radio buttons), which cannot import Python, is held to it here."""

from __future__ import annotations

import re
from pathlib import Path

from rewind.config import Settings
from rewind.native.handlers import schemas
from rewind.search_modes import DEFAULT_MODE, MODES

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "extension"


def test_the_extension_lists_the_hosts_modes_in_its_order():
    js = (EXTENSION / "lib" / "settings.js").read_text(encoding="utf-8")
    listed = re.search(r"export const SEARCH_MODES = Object\.freeze\(.*?\[([^\]]*)\]", js)
    assert listed, "lib/settings.js no longer exports SEARCH_MODES"
    assert tuple(re.findall(r'"(\w+)"', listed.group(1))) == MODES
    typedef = re.search(r"searchMode: ([^,\n]+),", js)
    assert typedef and tuple(re.findall(r'"(\w+)"', typedef.group(1))) == MODES
    assert re.search(rf'searchMode: /\*\* @type {{"{DEFAULT_MODE}"}} \*/ \("{DEFAULT_MODE}"\)',
                     js), "the extension's default mode is not the host's"


def test_the_side_panel_offers_every_mode_and_checks_the_default():
    html = (EXTENSION / "sidepanel.html").read_text(encoding="utf-8")
    radios = re.findall(r'<input type="radio" name="mode" value="(\w+)"( checked)?>', html)
    assert tuple(v for v, _ in radios) == MODES
    assert [v for v, checked in radios if checked] == [DEFAULT_MODE]


def test_the_search_request_takes_the_modes_and_defaults_to_hybrid():
    mode = schemas(Settings())["search"].fields["mode"]
    assert mode.spec.choices == MODES and mode.default == DEFAULT_MODE


def test_no_other_module_of_the_host_spells_the_modes_out():
    spelled = re.compile(r"""["']hybrid["'],\s*["']semantic["'],\s*["']keyword["']""")
    found = [p.relative_to(ROOT).as_posix() for p in (ROOT / "host" / "rewind").rglob("*.py")
             if spelled.search(p.read_text(encoding="utf-8"))]
    assert found == ["host/rewind/search_modes.py"]


def test_protocol_md_documents_the_modes():
    doc = (ROOT / "PROTOCOL.md").read_text(encoding="utf-8")
    row = re.search(r"^\| `mode` \| (.*?) \| `\"(\w+)\"` \|$", doc, re.M)
    assert row, "PROTOCOL.md's search table has no mode row"
    assert tuple(re.findall(r'`"(\w+)"`', row.group(1))) == MODES
    assert row.group(2) == DEFAULT_MODE
