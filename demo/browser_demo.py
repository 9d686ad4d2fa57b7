"""The browser demo (`python3 build.py demo`): Rewind end to end, as a person uses it.

Job: register the real host for a throwaway Chromium profile, launch Chromium with the
built extension, read a slice of the real Python documentation served on 127.0.0.1,
wait until the host has indexed it, type a search, a question and a follow-up into the
side panel, print what the person sees (each citation's passage too), and save screenshots
of the welcome page, the side panel, the popup and each section of the options page.
Never: touch the person's own browser profiles or host registration (everything lives
under the output folder), or fake an answer the host did not give.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from demo.harness import (
    ROOT,
    HarnessError,
    RewindBrowser,
    build_extension,
    find_chromium,
    store_pages,
    wait_until,
)
from demo.sites import LocalSite

# A slice of the Python docs a person might read in an afternoon: short and medium pages
# on different topics (embedding is what takes time, ~1 s per passage on a busy laptop).
PAGES = [
    "tutorial/appetite.html",
    "tutorial/interpreter.html",
    "tutorial/venv.html",
    "howto/sorting.html",
    "faq/installed.html",
    "faq/gui.html",
    "faq/windows.html",
    "tutorial/whatnow.html",
]
QUERY = "sort a list of objects by one of their attributes"
# The question is one the benchmark says Rewind answers, not one tried until it looked good:
# bench/quality/relevance.py on the Python FAQ (a tune source of the relevance gate) with the
# default LLM (smollm2-135m, 2026-11-23, host ce7b1eb, `--set python-faq --ask 40`, per-question
# outcomes from --signals) answered citing the right FAQ answer for 17 of its 40 questions
# (0.42, "answerable: answered, citing gold"); this question is one of them, and was one of
# 8/40 under the host before (bench/quality/answers.py --dump). Of those answered,
# faq/windows.html's two and faq/installed.html's "Can I delete Python?" are on pages short
# enough for the demo to read (30 passages a page); this is the first of windows.html's.
# Whatever the host answers is what the demo prints and screenshots.
QUESTION = "How do I run a Python program under Windows?"
# Another question of the same FAQ page, asked in the thread (it reuses its sources).
FOLLOW_UP = "How do I make Python scripts executable?"
DWELL_SECONDS = 1  # the demo reads fast; people get 5 s by default
UI_TIMEOUT_MS = 60_000
# The sections of the options page (options.html#NAME), each with what shows it filled in.
OPTIONS_SECTIONS = {
    "records": "#categories li",
    "search": "#result-count:enabled",
    "models": "#model-now",
    "data": "#storage:not(:empty)",
    "ai-tools": ".mcp-client",
}
ANSWER_TIMEOUT_MS = 300_000  # a small local model on two busy cores can take minutes


def say(msg: str) -> None:
    print(f"==> {msg}", flush=True)


def show(text: str, indent: str = "    | ") -> None:
    """What the person sees, line by line."""
    for line in text.strip().splitlines() or [""]:
        wrapped = textwrap.wrap(line, 92) or [""]
        for part in wrapped:
            print(f"{indent}{part}", flush=True)


def results_text(panel: Any, limit: int = 3) -> str:
    """The first results as a person reads them, and how many are folded away."""
    lines = []
    items = panel.locator("#results > li")
    for i in range(min(limit, items.count())):
        lines += card_lines(items.nth(i), f"{i + 1}. ")
    folded = panel.locator("#less-relevant")
    if folded.is_visible():
        lines.append(f"[{panel.locator('#less-label').inner_text()}, folded]")
    return "\n".join(lines)


def card_lines(li: Any, lead: str = "") -> list[str]:
    badge = li.locator(".badge")
    conf = f"  [{badge.inner_text()} confidence]" if badge.count() else ""
    lines = [
        f"{lead}{li.locator('.title').inner_text()}{conf}",
        f"   {li.locator('.url').inner_text()}",
    ]
    if li.locator(".snippet").count():
        lines.append(f"   “{li.locator('.snippet').inner_text()}”")
    lines.append(f"   {li.locator('.meta').inner_text()}")
    return lines


def turn_text(panel: Any, turn: Any) -> str:
    """One question and its answer as the panel shows them, with each citation's passage
    (what hovering the badge shows) and the sources, or the closest pages as cards."""
    question = (turn.locator(".question").text_content() or "").removeprefix("You asked: ")
    lines = [f"Q: {question}"]
    lines.append(f"A: {turn.locator('.answer').inner_text().strip()}")
    for badge in turn.locator("a.cite").all():
        tip = turn.locator(f"#{badge.get_attribute('aria-describedby')}")
        quote = tip.locator(".quote")
        shown = quote.text_content() if quote.count() else "(no passage)"
        lines.append(f"   [{badge.inner_text()}] on hover: “{shown}”")
    sources = turn.locator(".sources > li").all()
    if sources:
        lines.append("Sources:")
    for li in sources:
        number, title = li.locator(".cite").inner_text(), li.locator("a").inner_text()
        lines.append(f"   [{number}] {title} · {li.locator('.small').inner_text()}")
    for i, card in enumerate(turn.locator(".closest li.result").all()):
        if i == 0:
            lines.append(turn.locator(".closest h3").inner_text())
        lines += card_lines(card, "   · ")
    status = panel.locator("#ask-status").inner_text().strip()
    if status:
        lines.append(f"({status})")
    return "\n".join(lines)


def ask_in_panel(panel: Any, expect: Any, question: str, *, follow: bool = False) -> Any:
    """Ask as a person does (the box and Ask, or the follow-up box and Enter); returns the
    turn once its answer has finished."""
    turns = panel.locator("#turns > li.turn")
    before = turns.count() if follow else 0
    if follow:
        box = panel.locator("#follow-up")
        box.click()
        panel.keyboard.type(question, delay=30)
        box.press("Enter")
    else:
        box = panel.locator("#q")
        box.click()
        box.press("Escape")  # the earlier search goes
        panel.keyboard.type(question, delay=30)
        panel.get_by_role("button", name="Ask", exact=True).click()
    expect(turns).to_have_count(before + 1, timeout=UI_TIMEOUT_MS)
    turn = turns.nth(before)
    expect(turn).to_have_attribute("data-state", re.compile("done|stopped|failed"),
                                   timeout=ANSWER_TIMEOUT_MS)
    return turn


def run(args: argparse.Namespace) -> int:
    chromium = find_chromium()
    if not chromium:
        print("Chromium is missing: install it (Debian: `sudo apt-get install chromium`).")
        return 1
    if args.headed and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("--headed needs a display: try `xvfb-run python3 build.py demo --headed`.")
        return 1
    out: Path = args.out.resolve()
    for sub in ("profile", "host", "data", "screenshots"):
        shutil.rmtree(out / sub, ignore_errors=True)  # a fresh profile each run
    shots = out / "screenshots"
    shots.mkdir(parents=True)

    extension = args.extension
    if extension is None:
        extension = build_extension(out / "extension")
    docs = args.docs
    if docs is None:
        from bench.common.data import EvalDataError, python_docs

        say("fetching the Python documentation (Debian's python3.11-doc, once)")
        try:
            docs = python_docs()
        except EvalDataError as exc:
            raise HarnessError(str(exc)) from None

    from playwright.sync_api import expect, sync_playwright

    site = LocalSite(docs)
    started = time.monotonic()
    try:
        with sync_playwright() as pw:
            mode = "headed" if args.headed else "headless"
            say(f"launching {chromium} with the extension ({mode})")
            say(f"the host is registered for this profile only: {out / 'profile'}")
            browser = RewindBrowser.launch(
                pw, out, chromium=chromium, extension=extension, headless=not args.headed,
                keep_welcome=True,
            )
            try:
                return demo(browser, site, shots, expect)
            finally:
                browser.close()
                try:
                    wait_until(lambda: not browser.host_pids(), 5, "the host to exit")
                    say("the browser closed, and the host process with it")
                except TimeoutError:
                    say(f"the host is still running: {browser.host_pids()} (a bug: report it)")
                print(f"    (total {time.monotonic() - started:.0f} s)")
    finally:
        site.close()


def demo(browser: RewindBrowser, site: LocalSite, shots: Path, expect: Any) -> int:
    info = browser.wait_connected()
    hello = info.get("hello") or {}
    models = ", ".join(m["name"] for m in hello.get("models", []) if m.get("installed"))
    version = hello.get("host_version", "?")
    say(f"connected to the host {version}; models installed: {models or 'none'}")

    say("the welcome page (it opened when the extension was installed)")
    welcome = browser.welcome
    welcome.click("#recheck")
    expect(welcome.locator("#helper-status")).to_contain_text("Connected", timeout=UI_TIMEOUT_MS)
    show(welcome.locator("#helper-status").inner_text())
    welcome.screenshot(path=str(shots / "welcome.png"), full_page=True)
    welcome.close()

    browser.settings(dwellSeconds=DWELL_SECONDS)
    say(
        f"reading {len(PAGES)} pages of the Python docs like a person "
        f"(dwell threshold set to {DWELL_SECONDS} s)"
    )
    tab = browser.reading_tab()
    urls = [site.url(p) for p in PAGES]
    t0 = time.monotonic()
    for url in urls:
        browser.read_until_queued(tab, url)
        print(f"    read {url}  ({tab.title()})", flush=True)

    say("waiting until the host has indexed them")
    last = -1

    def all_indexed() -> bool:
        nonlocal last
        have = browser.store_urls()
        n = sum(u in have for u in urls)
        if n != last:
            print(f"    {n}/{len(urls)} indexed ({time.monotonic() - t0:.0f} s)", flush=True)
            last = n
        return n == len(urls)

    wait_until(all_indexed, 600, "the pages to be indexed", interval=0.5)
    pages = len(store_pages(browser.data_dir))

    say("the popup (toolbar button)")
    popup = browser.extension_window("popup.html", width=380, height=120)  # grows to fit
    expect(popup.locator("#headline")).to_contain_text("Connected", timeout=UI_TIMEOUT_MS)
    expect(popup.locator("#f-last a")).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(popup.locator("#pause-site")).to_be_visible(timeout=UI_TIMEOUT_MS)
    show(popup.locator("body").inner_text())
    popup.screenshot(path=str(shots / "popup.png"), full_page=True)

    say(f"the side panel: typing “{QUERY}”")
    panel = browser.extension_window("sidepanel.html", width=420, height=900)
    expect(panel.locator("#status-text")).to_contain_text("Connected", timeout=UI_TIMEOUT_MS)
    panel.locator("#q").click()
    panel.keyboard.type(QUERY, delay=40)
    status = panel.locator("#search-status")
    expect(status).to_have_text(
        re.compile(r"results? in|Nothing you've read"), timeout=UI_TIMEOUT_MS
    )
    show(status.inner_text())
    show(results_text(panel))
    panel.screenshot(path=str(shots / "sidepanel-search.png"), full_page=True)

    say(f"asking: “{QUESTION}” (the answer above, the search for the same words under it)")
    turn = ask_in_panel(panel, expect, QUESTION)
    show(turn_text(panel, turn))
    expect(panel.locator("#search-status")).to_have_text(
        re.compile(r"results? in|Nothing you've read"), timeout=UI_TIMEOUT_MS
    )
    show("Under the answer: " + panel.locator("#search-status").inner_text())
    show(results_text(panel))
    panel.screenshot(path=str(shots / "sidepanel-ask.png"), full_page=True)
    badges = turn.locator("a.cite")
    if badges.count():
        badges.first.hover()  # its tooltip: the passage behind the sentence
        expect(turn.locator(f"#{badges.first.get_attribute('aria-describedby')}")).to_be_visible()
        panel.screenshot(path=str(shots / "sidepanel-citation.png"), full_page=True)
        panel.mouse.move(0, 0)  # the tooltip goes with the pointer

    say(f"a follow-up in the same thread: “{FOLLOW_UP}”")
    turn = ask_in_panel(panel, expect, FOLLOW_UP, follow=True)
    show(turn_text(panel, turn))
    panel.screenshot(path=str(shots / "sidepanel-follow-up.png"), full_page=True)

    say("the options, one section at a time (options.html#NAME)")
    for name, path in options_screenshots(browser, shots, expect):
        show(f"{name}: {path.name}")

    say(f"screenshots in {shots}:")
    for shot in sorted(shots.glob("*.png")):
        print(f"    {shot}")
    say(f"the demo profile's data is kept in {browser.data_dir} ({pages} pages); try:")
    print(f'    REWIND_DATA_DIR={browser.data_dir} .venv/bin/rewind search "{QUERY}"')
    return 0


def options_screenshots(browser: RewindBrowser, shots: Path, expect: Any
                        ) -> list[tuple[str, Path]]:  # fmt: skip
    """A screenshot of each section of the options page, opened from its address as the
    popup's and the welcome page's links open it: shots/options-NAME.png."""
    taken = []
    for name in OPTIONS_SECTIONS:
        options = browser.extension_page(f"options.html#{name}", width=1280, height=800)
        expect(options.locator(f"#pane-{name}")).to_be_visible()
        expect(options.locator(OPTIONS_SECTIONS[name]).first).to_be_visible(timeout=UI_TIMEOUT_MS)
        heading = options.locator(f"#pane-{name} h2").inner_text()
        path = shots / f"options-{name}.png"
        options.screenshot(path=str(path), full_page=True)
        taken.append((heading, path))
        options.close()
    return taken


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m demo.browser_demo",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--extension",
        type=Path,
        help="a built extension folder (default: build it into OUT/extension)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=ROOT / "build" / "demo",
        help="where the profile, the host's data and the screenshots go",
    )
    p.add_argument(
        "--docs",
        type=Path,
        help="the Python docs' html folder (default: fetched with bench/common/data.py)",
    )
    p.add_argument("--headed", action="store_true", help="show the browser (needs a display)")
    args = p.parse_args(argv)
    try:
        return run(args)
    except HarnessError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 1
    except TimeoutError as exc:
        print(f"demo: {exc}. The host's log is {args.out / 'data' / 'host.log'}.", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
