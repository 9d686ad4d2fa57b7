"""Hostile pages for the extraction tests: each is what a real site can do to a reader.

A 200,000-node DOM, a page that mutates forever, one 5 MB text node, 50 nested open
shadow roots, a page that keeps blocking its own thread (300 ms of every 400 ms), and one
that blocks it once for 18 s (longer than the extension waits). Each carries a made-up
word (`mark`) found nowhere else, so a test can ask the host whether the page reached it.

Every page first installs, in its own world, what measures it: `window.__long` (the
PerformanceObserver("longtask") entries: start, duration) and `window.__blocks` (the
page's own busy loops: start, duration), so that a long task can be told apart as the
page's own or the content script's. (Long animation frames do not name content scripts:
their isolated world is not attributed, so they cannot tell them apart.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MEASURE = """<script>
window.__long = []; window.__blocks = [];
try {
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) __long.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: true });
} catch (e) {}
window.__busy = (ms) => {
  const t = performance.now();
  while (performance.now() - t < ms) {}
  __blocks.push([t, performance.now() - t]);
};
</script>"""

WORDS = ("river stone cloud harbour lantern meadow copper willow thunder orchard "
         "compass glacier pebble saffron kestrel").split()


def prose(n: int, seed: int = 0) -> str:
    """`n` words of plain sentences (ten words each)."""
    out = []
    for i in range(n):
        w = WORDS[(i * 7 + seed) % len(WORDS)]
        out.append(w.capitalize() if i % 10 == 0 else w)
        if i % 10 == 9:
            out[-1] += "."
    return " ".join(out)


@dataclass(frozen=True)
class Hostile:
    name: str
    mark: str
    title: str
    body: str
    recorded: bool = True  # False: skipped with a reason the popup shows

    def html(self) -> str:
        return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">{MEASURE}'
                f"<title>{self.title}</title></head><body>{self.body}</body></html>")


def _giant_dom() -> str:
    # 2,000 sections x (section + p + 32 x (b, its text, a space)) = 200,000 nodes + the intro.
    sections = []
    for s in range(2000):
        words = "".join(f"<b>{WORDS[(s + i) % len(WORDS)]}</b> " for i in range(32))
        sections.append(f"<section><p>{words}</p></section>")
    return ("<main><h1>A page of two hundred thousand nodes</h1>"
            f"<p>This enormous page about domgiantword keeps going. {prose(60)}</p>"
            + "".join(sections) + "</main>")


def _shadows() -> str:
    # Level 1, every tenth level and the deepest carry text; each level is one open shadow
    # root inside the last (host -> its shadow root -> the next host).
    return """<main><h1>Fifty shadow roots deep</h1><div id="root"></div></main>
<script>
let host = document.getElementById("root");
for (let level = 1; level <= 50; level++) {
  const root = host.attachShadow({ mode: "open" });
  let text = "";
  if (level === 1) text = "The first level, shadowtopword, opens fifty shadow roots. " + PROSE;
  else if (level === 50) text = "The deepest level says shadowbottomword at last. " + PROSE;
  else if (level % 10 === 0) text = "Level " + level + " of the nested roots goes on. " + PROSE;
  root.innerHTML = (text ? "<p>" + text + "</p>" : "") + '<div class="level"></div>';
  host = root.querySelector(".level");
}
</script>""".replace("PROSE", repr(prose(40)))


PAGES = (
    Hostile("giant-dom", "domgiantword", "A page of two hundred thousand nodes", _giant_dom()),
    Hostile("mutating", "mutaterword", "A page that never stops changing", f"""
<main><article><h1>A page that never stops changing</h1>
<p>This live ticker about mutaterword never stops. {prose(80, 1)}</p>
<p>{prose(80, 2)}</p><div id="feed"></div><p id="clock">0</p></article></main>
<script>
let n = 0;
const feed = document.getElementById("feed"), clock = document.getElementById("clock");
setInterval(() => {{
  n++;
  const p = document.createElement("p");
  p.textContent = "Update " + n + " from the wire.";
  feed.appendChild(p);
  if (feed.children.length > 200) feed.firstElementChild.remove();
  document.body.className = n % 2 ? "odd" : "even";
}}, 4);
(function frame() {{
  clock.textContent = String(performance.now());
  requestAnimationFrame(frame);
}})();
</script>"""),
    Hostile("text-wall", "textwallword", "A single five megabyte text node", """
<main><h1>A single five megabyte text node</h1><p id="wall"></p></main>
<script>
const sentence = "TEXT ";
// One text node (the HTML parser would cut a long text into 64 KB nodes).
document.getElementById("wall").textContent =
  "The wall of text begins with textwallword. " + sentence.repeat(Math.ceil(5e6 / sentence.length));
</script>""".replace("TEXT", prose(10, 3))),
    Hostile("shadows", "shadowbottomword", "Fifty shadow roots deep", _shadows()),
    Hostile("busy", "busyworkword", "A page that keeps its thread busy", f"""
<main><article><h1>A page that keeps its thread busy</h1>
<p>Every 400 ms this page about busyworkword computes for 300 ms. {prose(80, 4)}</p>
<p>{prose(80, 5)}</p></article></main>
<script>setInterval(() => __busy(300), 400);</script>"""),
    Hostile("frozen", "frozenword", "A page that freezes for eighteen seconds", f"""
<main><article><h1>A page that freezes</h1>
<p>Right after loading, this page about frozenword blocks its thread. {prose(80, 6)}</p>
</article></main>
<script>addEventListener("load", () => setTimeout(() => __busy(18000), 300));</script>""",
            recorded=False),
)


def write_hostile(root: Path) -> dict[str, Path]:
    """The pages as `root/hostile/<name>.html`; name -> file."""
    folder = root / "hostile"
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for page in PAGES:
        path = folder / f"{page.name}.html"
        path.write_text(page.html(), encoding="utf-8")
        out[page.name] = path
    return out
