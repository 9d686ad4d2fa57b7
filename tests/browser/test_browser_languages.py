"""Pages in German and Japanese read in Chromium: found by a query in their language, the
popup offers the multilingual model for them, and once the person accepts (and the store
is re-embedded), an English question finds them too.

Real Chromium, the real extension, the real host, MiniLM and multilingual-e5-small. The
history is seeded before the browser starts with pages in English, German and Chinese
(MiniLM vectors), so that the language mix is worth an offer; the German and Japanese
articles are then read in the browser, with their <html lang>.
"""

from __future__ import annotations

import html
import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect
from rewind.config import Settings
from rewind.profile.engine import Rewind

from demo.harness import RewindBrowser
from demo.sites import LocalSite

pytestmark = pytest.mark.browser

UI_TIMEOUT_MS = 30_000
E5 = "multilingual-e5-small"
PARAGRAPHS = json.loads((Path(__file__).resolve().parents[1] / "data" / "chunk_units.json")
                        .read_text("utf-8"))["paragraphs"]

GERMAN = ("Einen Fahrradschlauch flicken", "de", [
    "Ein platter Reifen ist schnell repariert, wenn man weiß, wie es geht. Zuerst nimmt man "
    "das Laufrad aus dem Rahmen und hebelt den Mantel mit zwei Reifenhebern von der Felge.",
    "Dann pumpt man den Schlauch ein wenig auf und hält ihn in einen Eimer mit Wasser: wo "
    "Luftblasen aufsteigen, ist das Loch. Die Stelle wird mit Schleifpapier angeraut, mit "
    "Vulkanisierflüssigkeit bestrichen und nach einer Minute mit einem Flicken verschlossen.",
    "Bevor der Schlauch wieder in den Mantel kommt, sucht man die Innenseite des Reifens nach "
    "Glassplittern oder Dornen ab, sonst ist der nächste Platten nicht weit.",
])
JAPANESE = ("盆栽の水やりの基本", "ja", [
    "盆栽の水やりは季節によって大きく変わります。夏は朝と夕方の一日二回、冬は土の乾き具合を見て"
    "二、三日に一回が目安です。",
    "土の表面が白っぽく乾いたら、鉢底の穴から水が流れ出るまでたっぷりと与えます。少しずつ何度も"
    "与えると、根の先まで水が届かず、木が弱ってしまいます。",
    "真夏の昼間に水をやると、鉢の中の温度が上がって根を傷めることがあるので避けましょう。",
])


def page_html(title: str, lang: str, paragraphs: list[str]) -> str:
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title></head><body><main><article>"
            f"<h1>{html.escape(title)}</h1>{body}</article></main></body></html>")


SEED_EN = [
    "Package management installs programs, updates them and removes them again. Every change "
    "is written to a log file so that you can look later at what happened.",
    "A cron job runs a command at fixed times: the crontab lists minute, hour, day of month, "
    "month and day of week, then the command, one job a line.",
    "Backups you never restore are hopes, not backups: test a restore into an empty folder "
    "at least once a month and compare the files with the originals.",
    "The firewall drops incoming connections unless a rule allows them; list the rules first, "
    "then add the one port the service needs and nothing more.",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> LocalSite:
    root = tmp_path_factory.mktemp("lang-site")
    for name, (title, lang, paras) in {"de.html": GERMAN, "ja.html": JAPANESE}.items():
        (root / name).write_text(page_html(title, lang, paras), encoding="utf-8")
    served = LocalSite(root)
    yield served
    served.close()


@pytest.fixture(scope="module")
def browser(playwright, chromium, extension_dir, model_dir, embedder, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("languages")
    seed = [(f"https://en.example.org/{i}", t) for i, t in enumerate(SEED_EN)]
    seed += [(f"https://de.example.org/{i}", f"{PARAGRAPHS['de']} ({i})") for i in range(3)]
    seed += [(f"https://zh.example.org/{i}", f"{PARAGRAPHS['zh']}（{i}）") for i in range(3)]
    with Rewind.open(workdir / "data", Settings(), embedder=embedder,
                     model_dir=model_dir) as eng:
        for url, text in seed:
            eng.ingest(url, text, {"title": "", "visited_at": 1_700_000_000.0})
    b = RewindBrowser.launch(playwright, workdir, chromium=chromium, extension=extension_dir,
                             model_dir=model_dir)
    b.wait_connected()
    yield b
    b.close()


def stats(b: RewindBrowser) -> dict:
    return b.evaluate("globalThis.__rewind.request('stats')")["stats"]


def first_url(b: RewindBrowser, query: str, mode: str) -> str | None:
    hits = b.search(query, mode=mode)
    return hits[0]["url"] if hits else None


def test_german_and_japanese_pages_found_natively_then_in_english_with_the_multilingual_model(
        browser, site):
    de, ja = site.url("de.html"), site.url("ja.html")
    browser.read_all([de, ja])
    deadline = time.monotonic() + 60  # the keyword index follows the store a moment later
    while (langs := stats(browser)["languages"])["pages"].get("ja") != 1:
        assert time.monotonic() < deadline, langs
        time.sleep(0.3)
    assert langs["pages"] == {"en": 4, "de": 4, "zh": 3, "ja": 1}

    # In their own language, by keyword (the German word stemmed, the Japanese as pairs)
    # and by the default hybrid search.
    for mode in ("keyword", "hybrid"):
        assert first_url(browser, "Fahrradschläuche flicken", mode) == de
        assert first_url(browser, "盆栽の水やり", mode) == ja

    # The popup offers the multilingual model; nothing starts until the person says so.
    popup = browser.extension_page("popup.html")
    card = popup.locator("#language-offer-card")
    expect(card).to_contain_text("of your pages are in", timeout=UI_TIMEOUT_MS)
    expect(card).to_contain_text("German")
    assert stats(browser)["reembed"] is None
    popup.locator("#language-offer-use").click()
    deadline = time.monotonic() + 600
    while (now := stats(browser))["reembed"] is not None or not now["embedding_model"].startswith(
            E5):
        assert time.monotonic() < deadline, now["reembed"]
        time.sleep(0.5)
    assert now["unembedded_passages"] == 0

    # An English question finds the German and the Japanese page. (The 4-bit model's
    # cosines are close together, 0.76-0.83 here: "how do I repair a punctured bike inner
    # tube" put an English page about backups a hair above the German one.)
    for mode in ("hybrid", "semantic"):
        assert first_url(browser, "repairing a flat bicycle tyre", mode) == de
        assert first_url(browser, "how often should I water a bonsai tree", mode) == ja
