"""axe-core in an extension page: what a WCAG checker finds, in words a person can act on.

Shared by the accessibility browser tests. axe-core is the npm package pinned in
extension/package.json (devDependencies), installed by `build.py test` (npm ci); it is
never copied into the repository. Its source goes into the page through Playwright's
evaluate, which the extension pages' content security policy does not block.
"""

from __future__ import annotations

from typing import Any

from support.requirement import missing

from demo.harness import EXTENSION_SRC

AXE = EXTENSION_SRC / "node_modules" / "axe-core" / "axe.min.js"
# The rules of WCAG 2.x A and AA and axe's best practices (landmarks, nesting, headings).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]

RUN = """async ([include, tags]) => {
    const context = include ? {include: [include]} : document;
    const r = await axe.run(context, {runOnly: {type: "tag", values: tags},
                                      resultTypes: ["violations"]});
    return {version: axe.version, violations: r.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => ({target: n.target.join(" "),
                                  summary: (n.failureSummary || "").split("\\n").slice(1)
                                      .map(s => s.trim()).join("; ")})),
    }))};
}"""


def axe_source() -> str:
    if not AXE.is_file():
        missing(f"axe-core is not installed ({AXE}): run `python3 build.py test` "
                "(npm ci in extension/)")
    return AXE.read_text(encoding="utf-8")


def violations(page: Any, source: str, include: str | None = None) -> list[dict]:
    """axe-core's violations in the page as it is now (or in the element `include`)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(source)
    return page.evaluate(RUN, [include, TAGS])["violations"]


def report(found: list[dict]) -> str:
    """One line per violation and one per element it is on: rule, impact, target, why."""
    lines = []
    for v in found:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        lines += [f"    {n['target']}: {n['summary']}" for n in v["nodes"]]
    return "\n".join(lines)


def check_both_schemes(page: Any, source: str, where: str, include: str | None = None) -> None:
    """No violation in the light and in the dark colour scheme (prefers-color-scheme)."""
    found = {}
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found[scheme] = violations(page, source, include)
    page.emulate_media(color_scheme="light")
    bad = {s: v for s, v in found.items() if v}
    assert not bad, "axe-core violations in " + where + ":\n" + "\n".join(
        f"[{s}]\n{report(v)}" for s, v in bad.items())
