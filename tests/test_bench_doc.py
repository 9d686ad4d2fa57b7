"""docs/benchmarks.md is a report, not a notebook: every section says how to make it again
(a command whose script exists, the commit and the date), every section a script writes is
one `build.py bench NAME` rewrites, the contents list every part and section, and no line
speaks of who measured it or in which order the work was done. No model, no network."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.common import report
from bench.common.sections import SECTIONS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"
BLOCK = re.compile(r"<!-- bench:(\S+) -->\n(.*?)\n<!-- /bench:\1 -->", re.S)
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
# Words about the work rather than the project: sessions, issues, days, who did it.
ORDINAL = (r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh"
           r"|twelfth|\d+(?:st|nd|rd|th)")
ABOUT_THE_WORK = {
    "session": r"\bsessions?\b",
    "issue": r"\bissues?\s+#?\d+",
    "day": r"\b(?:yesterday|today|tonight)\b",
    "agent": r"\bagents?\b",
    "ordinal": rf"\b(?:{ORDINAL})\s+(?:session|sitting|round of work|day)\b",
    "sitting": r"\b(?:an earlier|the last|the previous|this)\s+(?:session|sitting)\b",
}
# Not a heading of the report: a diary's.
HEADING_WORDS = [r"written by hand", r"what the numbers say", r"\bquiet rerun\b",
                 r"\bafter the\b"]


def sections(text: str) -> list[tuple[str | None, str]]:
    """(name, text) of every section: each script's block, and each `## ` heading outside
    the blocks (a table written from a test's output) up to the next heading or block."""
    found = [(m.group(1), m.group(2)) for m in BLOCK.finditer(text)]
    outside = BLOCK.sub("<!-- block -->", text)
    for m in re.finditer(r"^## (?!Contents$).*?(?=^#{1,2} |^<!-- block -->|\Z)", outside,
                         re.S | re.M):
        found.append((None, m.group(0)))
    return found


def command(body: str) -> str:
    """The first command of the section's provenance line (report.PROVENANCE)."""
    m = report.PROVENANCE.search(body)
    assert m, "no line `command` · ... commit abc1234 under the heading"
    return m.group(0).split("`")[1]


def check(name: str | None, body: str) -> None:
    heading = next(line for line in body.splitlines() if line.startswith("## "))
    cmd = command(body)
    assert DATE.search(body), f"{heading}: no date"
    built = re.fullmatch(r"python3 build\.py bench (\S+)", cmd)
    if built:
        assert built.group(1) in SECTIONS, f"{heading}: build.py bench knows no {cmd!r}"
        assert name in (None, built.group(1)), f"{heading}: its line names {built.group(1)}"
        return
    module = re.search(r"-m (\S+)(?: (\S+))?", cmd)
    assert module, f"{heading}: {cmd!r} is neither `build.py bench NAME` nor `python -m`"
    if module.group(1) == "pytest":
        assert (ROOT / module.group(2)).is_file(), f"{heading}: no test {module.group(2)}"
    else:
        path = ROOT / (module.group(1).replace(".", "/") + ".py")
        assert path.is_file(), f"{heading}: no script {path.relative_to(ROOT)}"


def test_every_section_says_its_command_commit_and_date():
    found = sections(DOC.read_text(encoding="utf-8"))
    assert len(found) >= 30, "the report's sections were not found: has its layout moved?"
    for name, body in found:
        check(name, body)


def test_what_a_script_writes_passes_the_same_check(tmp_path: Path):
    doc = tmp_path / "benchmarks.md"
    report.update_section("scale", "## Rewind at scale\n\n2026-01-02 · a machine\n\n| a |", doc)
    [(name, body)] = sections(doc.read_text(encoding="utf-8"))
    check(name, body)
    assert command(body) == "python3 build.py bench scale"
    # A body that states its own command and commit keeps its line, and only it.
    own = "## Records\n\n`python -m bench.quality.records` · commit 0123abc · 2026-01-02"
    report.update_section("records", own, doc)
    [_, (name, body)] = sections(doc.read_text(encoding="utf-8"))
    check(name, body)
    assert body == own


def test_build_py_rewrites_every_section_and_no_other():
    names = {name for name, _ in sections(DOC.read_text(encoding="utf-8")) if name}
    assert names == set(SECTIONS), (f"not in bench/common/sections.py: {names - set(SECTIONS)};"
                                    f" not in the report: {set(SECTIONS) - names}")
    for runs in SECTIONS.values():
        for run in runs:
            module = run.split()[0]
            assert (ROOT / "bench" / (module.replace(".", "/") + ".py")).is_file(), run


def test_the_readme_names_every_section():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [name for name in SECTIONS if f"`{name}`" not in readme]
    assert not missing, f"README.md's benchmarks part does not name: {missing}"


@pytest.mark.parametrize("pattern", ABOUT_THE_WORK.values(), ids=ABOUT_THE_WORK.keys())
def test_no_line_speaks_of_the_work_rather_than_the_project(pattern: str):
    for n, line in enumerate(DOC.read_text(encoding="utf-8").splitlines(), 1):
        assert not re.search(pattern, line, re.I), f"docs/benchmarks.md:{n}: {line[:120]}"


def test_headings_name_questions_not_the_diary():
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            for pattern in HEADING_WORDS:
                assert not re.search(pattern, line, re.I), line


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_contents_list_every_part_and_section():
    text = DOC.read_text(encoding="utf-8")
    assert "\n## Contents\n" in text, "no contents at the top"
    contents = text.split("## Contents", 1)[1].split("\n# ", 1)[0]
    parts = re.findall(r"^# (.+)$", text, re.M)[1:]  # the first is the title
    assert parts, "no parts"
    for part in parts:
        assert f"[{part}](#{slug(part)})" in contents, f"part {part!r} not in the contents"
    for _, body in sections(text):
        title = next(line for line in body.splitlines() if line.startswith("## "))[3:]
        short = re.sub(r"\s*\((?:bench|tests)/[^)]*\)$", "", title)
        assert short in contents, f"section {short!r} not in the contents"
