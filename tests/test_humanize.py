"""How times read (humanize.py): the same words as the extension (tests/data/ago_cases.json)."""

import json
from pathlib import Path

from rewind.humanize import ago, duration

CASES = json.loads((Path(__file__).parent / "data" / "ago_cases.json").read_text())


def test_ago_speaks_as_the_extension_does():
    now = CASES["now"]
    for case in CASES["cases"]:
        assert ago(now - case["seconds_ago"], now) == case["says"], case


def test_duration():
    assert duration(45) == "45 s" and duration(89) == "89 s" and duration(600) == "10 min"
