"""The options page for people, in the real browser: its five sections, each opened from its
address (options.html#records …), from the navigation, from the keyboard alone, and from the
popup's and the welcome page's links (the options tab already open is reused); one "Results
to show" (the helper's), the ranking knobs closed under "Advanced" in plain words, and
"Better answers — Get it": the download of the recommended answering model with the
helper's progress, Cancel, and the switch to it once done.

The real GGUF files cannot be downloaded here (no model hub). The model offered is a
stand-in in a test catalog ($REWIND_TEST_MODEL_CATALOG), served by a local server laid out
like the model host ($REWIND_TEST_MODEL_HOST): its file is the offline SmolLM2 GGUF's bytes
under another name, with that file's real sha256 pinned — so what is fetched is checked as
a real model is, and once switched to, the host really answers with it. Nothing here
claims that a real published model was fetched.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from panel_ui import search
from playwright.sync_api import expect
from rewind.models import sources, specs
from support.model_server import PROXY_VARS, ModelHost, serving

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser

UI_TIMEOUT_MS = 30_000
SMOL = "smollm2-135m-instruct-q8_0"
MINILM = "all-minilm-l6-v2-int8"
STAND_IN = "stand-in-answers"
PATH = "/rewind-test/stand-in-GGUF/resolve/main/stand-in.gguf"


def stand_in_catalog(folder: Path) -> Path:
    """models.json's embedding models and offline LLM, and the stand-in to download."""
    real = json.loads((Path(specs.__file__).parent / "models.json").read_text())
    smol = real["llm"][SMOL]
    gguf = smol["files"]["model.gguf"]  # the file answers run (made at install)
    stand_in = {**smol, "description": "a stand-in for a downloadable model (tests)",
                "label": "Stand-in 0.2B", "family": "Stand-in", "parameters_b": 0.2,
                "measured": {**smol["measured"], "how": "stand-in"},
                "files": {"model.gguf": {"sha256": gguf["sha256"], "bytes": gguf["bytes"],
                                         "download": "rewind-test/stand-in-GGUF stand-in.gguf",
                                         "url": f"https://huggingface.co{PATH}"}}}
    path = folder / "models.json"
    path.write_text(json.dumps({"embedding": real["embedding"],
                                "llm": {SMOL: smol, STAND_IN: stand_in}}))
    return path


@pytest.fixture(scope="module")
def model_host(llm_dir: Path):
    gguf = specs.model_path(specs.llm_spec(SMOL), llm_dir) / "model.gguf"
    host = ModelHost(files={PATH: gguf.read_bytes()})
    with serving(host):
        yield host


@pytest.fixture(scope="module")
def browser(launch, model_host, llm_dir: Path, tmp_path_factory) -> RewindBrowser:
    work = tmp_path_factory.mktemp("options-models")
    own_models = work / "models"  # the shared models, read only, and room for the stand-in
    own_models.mkdir()
    for name in (MINILM, SMOL):
        (own_models / name).symlink_to(specs.model_path(specs.llm_spec(SMOL) if name == SMOL
                                                         else specs.embedding_spec(name),
                                                         llm_dir), target_is_directory=True)
    env = {sources.TEST_HOST_ENV: model_host.url,
           specs.TEST_CATALOG_ENV: str(stand_in_catalog(work)),
           "REWIND_MODEL_DIR": str(own_models)}
    for var in PROXY_VARS:
        env[var] = ""
    b = launch("options", env=env)
    b.own_models = own_models  # type: ignore[attr-defined]
    b.wait_connected()
    return b


def test_results_to_show_is_one_setting_and_the_ranking_knobs_are_advanced(browser):
    options = browser.extension_page("options.html#search", width=900, height=1400)
    count = options.locator("#result-count")
    expect(count).to_be_enabled(timeout=UI_TIMEOUT_MS)
    expect(count).to_have_value("10")
    # The main view speaks plainly; the fusion knobs are closed away under "Advanced".
    advanced = options.locator("#advanced")
    assert advanced.get_attribute("open") is None
    label = options.locator("label[for=host-rrf_k]")
    expect(label).to_be_hidden()
    expect(label).to_have_text(re.compile(r"how much lower-ranked pages still count"))
    visible = options.locator("body").inner_text()
    assert "reciprocal rank fusion" not in visible.lower()
    assert "rrf_k" not in visible and "default_limit" not in visible
    advanced.locator("summary").click()
    expect(label).to_be_visible()
    expect(options.locator("label[for=host-fusion]")).to_have_text(
        "How matches on your words and on meaning are combined")

    count.fill("3")
    options.locator("#save-search").click()
    expect(options.locator("#search-msg")).to_have_text("Saved.", timeout=UI_TIMEOUT_MS)
    reply = browser.evaluate("globalThis.__rewind.request('get_settings')")
    assert reply["settings"]["default_limit"] == 3
    assert "resultCount" not in browser.settings()  # nothing of its own in the extension
    # The side panel asks for no count: the helper's applies.
    for i in range(5):  # five pages, each of its own site, that all match
        browser.evaluate("""(i) => globalThis.__rewind.request('index_page', {page: {
            url: `https://lighthouse-${i}.example/lens`, title: `Lighthouse ${i}`,
            passages: [{text: `The lighthouse lens number ${i} was ground by hand in Paris.`,
                        position: 0}]}})""", i)
    panel = browser.extension_page("sidepanel.html")
    search(panel, "lighthouse lens ground by hand")
    cards = panel.locator("#results > li.result, #results-folded > li.result")
    expect(cards).to_have_count(3)
    panel.close()
    count.fill("0")
    options.locator("#save-search").click()
    expect(options.locator("#search-msg")).to_contain_text("Results to show", timeout=5_000)
    assert browser.evaluate(
        "globalThis.__rewind.request('get_settings')")["settings"]["default_limit"] == 3
    options.close()


def test_get_it_downloads_the_recommended_model_with_progress_cancel_and_resume(browser,
                                                                              model_host):
    total = len(model_host.files[PATH])
    mb, gb = f"{round(total / 1e6)} MB", f"{total / 1e9:.2f} GB"  # the stand-in's size
    options = browser.extension_page("options.html#models", width=900, height=1400)
    line = options.locator("#answer-model-line")
    expect(line).to_have_text(re.compile(rf"^Better answers: Stand-in 0\.2B, {mb}, first words "
                                         r"in ~\d+ s here$"), timeout=UI_TIMEOUT_MS)
    expect(options.locator("#answer-model-now")).to_have_text(
        "Answers now come from SmolLM2 135M.")
    expect(options.locator("#answer-model-offer")).to_contain_text(f"It costs: a {gb} download")

    # Slowly, so that a person can cancel: ~10 s for the file.
    model_host.rate = 10_000_000
    options.get_by_role("button", name="Get it").click()
    msg = options.locator("#answer-model-msg")
    expect(msg).to_have_text(re.compile(rf"^Downloading Stand-in 0\.2B: [1-9]\d* MB of {mb} "
                                        r"\(\d+ %\)$"), timeout=UI_TIMEOUT_MS)
    expect(options.locator("#answer-model-progress")).to_be_visible()
    expect(options.get_by_role("button", name="Get it")).to_be_disabled()
    options.get_by_role("button", name="Cancel").click()
    expect(msg).to_have_text(re.compile(r"^Stopped\. What came so far is kept"))
    part = browser.own_models / STAND_IN / ".model.gguf.part"
    # The helper stops at its next piece: what came stays, no file under the real name.
    have = wait_until(lambda: part.stat().st_size if part.exists() else None, 10, "the part")
    assert 0 < have < total
    wait_until(lambda: re.search(r"type=pull_model lane=download [\d.]+ ms cancelled",
                                 (browser.data_dir / "host.log").read_text()),
               30, "the host to log the pull as cancelled")
    assert not (browser.own_models / STAND_IN / "model.gguf").exists()
    expect(options.get_by_role("button", name="Get it")).to_be_enabled()

    model_host.rate = None
    kept = part.stat().st_size
    options.get_by_role("button", name="Get it").click()
    expect(msg).to_have_text("Done: Stand-in 0.2B answers your questions from now on.",
                             timeout=120_000)
    assert model_host.log[-1].range == f"bytes={kept}-" and model_host.log[-1].status == 206
    expect(options.locator("#answer-model-now")).to_have_text(
        "Answers now come from Stand-in 0.2B.")
    expect(options.locator("#answer-model-offer")).to_contain_text(
        "Stand-in 0.2B answers: the model that suits this computer best.")
    expect(options.get_by_role("button", name="Get it")).to_have_count(0)
    options.close()

    # The switch is real: the helper answers with the model it just fetched.
    stats = browser.evaluate("globalThis.__rewind.request('stats')")["stats"]
    assert stats["answer_model"] == STAND_IN
    browser.evaluate("""globalThis.__rewind.request('index_page', {page: {
        url: 'https://pages.example/starter', title: 'Keeping a sourdough starter',
        passages: [{text: 'Feed a sourdough starter once a day with equal weights of flour '
                    + 'and water, and keep it at room temperature.', position: 0}]}})""")
    reply = browser.evaluate(
        "globalThis.__rewind.request('ask', {question: 'How often do I feed my starter?'})")
    assert reply["model"] == STAND_IN, reply


# ---- the page's sections ---------------------------------------------------------------

SECTIONS = {  # the address of each pane, and its link in the navigation
    "records": "What Rewind records",
    "search": "Search and answers",
    "models": "Models",
    "data": "Your data",
    "ai-tools": "AI tools",
}
SHOWN = ("() => [...document.querySelectorAll('section.pane')].filter(p => !p.hidden)"
         ".map(p => p.dataset.pane)")
FOCUS = "() => document.activeElement.id"


def expect_section(options, pane: str) -> None:
    """`pane` alone is shown, its link alone is the current one, and the tab says which."""
    expect(options.locator(f"#pane-{pane}")).to_be_visible()
    assert options.evaluate(SHOWN) == [pane]
    nav = options.get_by_role("navigation", name="Options sections")
    for name, label in SECTIONS.items():
        link = nav.get_by_role("link", name=label, exact=True)
        if name == pane:
            expect(link).to_have_attribute("aria-current", "page")
        else:
            expect(link).not_to_have_attribute("aria-current", "page")
    heading = options.locator(f"#pane-{pane} h2").text_content()
    expect(options).to_have_title(f"Rewind options: {heading}")


def test_each_section_opens_from_its_address_from_the_navigation_and_the_keyboard(browser):
    for pane in SECTIONS:
        options = browser.extension_page(f"options.html#{pane}", width=1280, height=800)
        expect_section(options, pane)
        options.close()
    # No address: what Rewind records; an element's id or a card's name: its section, in view.
    options = browser.extension_page("options.html", width=1280, height=800)
    expect_section(options, "records")
    for address, pane, seen in (("blocklist", "records", "#blocklist"),
                                ("held-section", "records", "#held-section"),
                                ("backup", "data", "#backup-passphrase"),
                                ("result-count", "search", "#result-count"),
                                ("mcp-body", "ai-tools", "#mcp-body")):
        options.goto(f"{browser.origin}options.html#{address}")
        expect_section(options, pane)
        expect(options.locator(seen)).to_be_in_viewport()

    # From the navigation: the address follows, the focus goes to the section's heading,
    # and Back returns to the section before.
    nav = options.get_by_role("navigation", name="Options sections")
    before = "ai-tools"
    for pane, label in SECTIONS.items():
        nav.get_by_role("link", name=label, exact=True).click()
        expect(options).to_have_url(re.compile(rf"options\.html#{pane}$"))
        expect_section(options, pane)
        assert options.evaluate(FOCUS) == options.locator(f"#pane-{pane} h2").get_attribute("id")
        options.go_back()
        expect_section(options, before)
        options.go_forward()
        expect_section(options, pane)
        before = pane

    # From the keyboard alone: Tab reaches the links, Enter opens one, Tab goes on in it.
    options.goto(f"{browser.origin}options.html#records")
    options.reload()
    expect_section(options, "records")
    for _ in range(10):
        options.keyboard.press("Tab")
        if options.evaluate("() => document.activeElement.textContent") == "Models":
            break
    else:
        raise AssertionError("Tab did not reach the link to Models")
    assert options.evaluate("() => document.activeElement.matches('nav a:focus-visible')")
    options.keyboard.press("Enter")
    expect_section(options, "models")
    assert options.evaluate(FOCUS) == "models-title"
    options.keyboard.press("Tab")
    assert options.evaluate(
        "() => document.querySelector('#pane-models').contains(document.activeElement)")
    options.close()


def test_the_popup_and_the_welcome_page_open_the_options_at_their_section(browser):
    welcome = browser.extension_page("welcome.html", width=900, height=1000)
    welcome.get_by_role("link", name="Your data").click()
    expect(welcome).to_have_url(re.compile(r"options\.html#data$"))
    expect_section(welcome, "data")
    welcome.close()

    def options_tabs() -> list:
        return [p for p in browser.ctx.pages if p.url.startswith(browser.origin + "options.html")]

    assert not options_tabs()
    popup = browser.extension_window("popup.html", width=380, height=600)
    with browser.ctx.expect_page() as opened:
        popup.get_by_role("link", name="Options").click()
    options = opened.value
    expect(options).to_have_url(re.compile(r"options\.html#records$"))
    expect_section(options, "records")
    # The options tab open at another section: the popup brings it there, no second tab.
    options.get_by_role("link", name="Your data").click()
    expect_section(options, "data")
    popup = browser.extension_window("popup.html", width=380, height=600)
    popup.get_by_role("link", name="Options").click()
    expect(options).to_have_url(re.compile(r"options\.html#records$"))
    expect_section(options, "records")
    assert len(options_tabs()) == 1
    options.close()
