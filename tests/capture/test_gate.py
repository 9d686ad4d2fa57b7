"""The host's capture gate (capture/gate.py, wired in engine.index_page): whatever sends a
page — the extension over the real host process, `rewind index`, `ingest` — the sensitive-
page policy, the person's own rules and the content check (the real embedding model) decide
before anything is stored, and personal data is masked in what is stored."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rewind.capture.gate import RULES_FILE
from rewind.capture.ingest import PageInput, PassageInput
from rewind.config import Settings
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery
from support.host_process import HostProcess

PAGES = Path(__file__).resolve().parents[1] / "data" / "sensitive_pages"
ARTICLE = ["Online banking lets customers of a bank manage accounts over the internet.",
           "Banks started offering it in the 1980s; security relies on passwords and codes."]


def labelled(page_id: str) -> dict:
    for f in PAGES.glob("*.json"):
        for page in json.loads(f.read_text()):
            if page["id"] == page_id:
                return page
    raise KeyError(page_id)


def as_input(page: dict, url: str | None = None) -> PageInput:
    return PageInput(url or page["url"], page["title"],
                     [PassageInput(t, i + 1) for i, t in enumerate(page["passages"])],
                     visited_at=1.7e9)


def stored_urls(eng: Rewind) -> set[str]:
    return {p["url"] for p in eng.list_pages(0, 1000)}


def test_a_policy_url_is_refused_and_nothing_is_stored(engine):
    res = engine.index_page(PageInput("https://www.paypal.com/myaccount/summary", "Summary",
                                      [PassageInput(t) for t in ARTICLE]))
    assert res.status == "skipped" and res.page_id is None
    assert res.to_dict()["category"] == "finance" and "payment" in res.to_dict()["why"]
    assert stored_urls(engine) == set()
    ok = engine.index_page(PageInput("https://en.wikipedia.org/wiki/Online_banking",
                                     "Online banking", [PassageInput(t) for t in ARTICLE]))
    assert ok.status == "new"


def test_an_account_page_is_refused_by_its_text_and_an_article_about_it_is_kept(engine):
    statement = labelled("fin-credit-card-statement")
    res = engine.index_page(as_input(statement))
    assert res.status == "skipped" and res.to_dict()["rule"].startswith("content")
    article = labelled("mail-article-email-history")
    assert engine.index_page(as_input(article)).status == "new"
    assert stored_urls(engine) == {article["url"]}
    hits = engine.search(SearchQuery("credit card statement balance", limit=10)).results
    assert all(h.url != statement["url"] for h in hits)


def test_the_persons_rules_refuse_pages_from_any_source(engine):
    engine.set_rules({"blocklist": ["private-notes"], "paused_sites": ["news.example"]})
    for url in ("https://wiki.example/private-notes/plan", "https://news.example/today"):
        res = engine.index_page(PageInput(url, "t", [PassageInput(t) for t in ARTICLE]))
        assert res.status == "skipped" and res.to_dict()["category"] in ("excluded", "paused")
    # ... also through seed 002's ingest() and after the profile is opened again
    assert engine.ingest("https://news.example/more", " ".join(ARTICLE)).status == "skipped"
    again = Rewind.open(engine.data_dir, engine.settings, embedder=engine.embedder())
    try:
        res = again.index_page(PageInput("https://news.example/x", "t",
                                         [PassageInput(t) for t in ARTICLE]))
        assert res.status == "skipped"
    finally:
        again.close()
    assert stored_urls(engine) == set()


def test_always_record_wins_over_the_categories_and_the_content_check(engine):
    statement = labelled("fin-credit-card-statement")
    url = "https://cards.meridian.example/statements/2024-10"
    engine.set_rules({"always_record": ["cards.meridian.example"]})
    assert engine.index_page(as_input(statement, url)).status == "new"
    assert engine.index_page(PageInput("https://mail.google.com/mail/u/0/", "Inbox",
                                       [PassageInput(t) for t in ARTICLE])).status == "skipped"


def test_bad_rules_are_refused_and_change_nothing(engine):
    engine.set_rules({"blocklist": ["private-notes"]})
    with pytest.raises(ValueError, match="disabled_categories"):
        engine.set_rules({"disabled_categories": ["no-such-category"]})
    saved = json.loads((engine.data_dir / RULES_FILE).read_text())
    assert saved == {"rules": {"blocklist": ["private-notes"]}, "redact": True}


def test_personal_data_is_masked_in_what_is_stored(engine):
    passages = [
        "The community garden on Elm Street opened in 2019 and now has forty raised beds. "
        "Volunteers meet on Saturday mornings to water, weed and share seedlings.",
        "Tomatoes, beans and squash grow best in the sunny south corner, while the shaded "
        "beds by the wall suit lettuce, spinach and herbs through the summer.",
        "To join, write to maya.lind@example.org or call +44 20 7946 0958; the yearly fee "
        "of 15 pounds pays for water and tools.",
    ]
    res = engine.index_page(PageInput("https://garden.example/join", "Joining the garden",
                                      [PassageInput(t, i) for i, t in enumerate(passages)]))
    assert res.status == "new", res
    [page] = engine.export_pages(0, 10)
    stored = page["title"] + " " + " ".join(p["text"] for p in page["passages"])
    for secret in ("maya.lind@example.org", "7946 0958"):
        assert secret not in stored
    assert "[email]" in stored and "[phone number]" in stored
    assert "opened in 2019" in stored and "15 pounds" in stored  # ordinary numbers stay


def test_switching_the_checks_off_is_the_persons_choice(engine):
    engine.settings = dataclasses.replace(Settings(), content_check=False)
    engine.set_rules({}, redact=False)
    statement = labelled("fin-credit-card-statement")
    assert engine.index_page(as_input(statement)).status == "new"
    engine.index_page(PageInput("https://notes.example/p", "t",
                                [PassageInput("Write to maya.lind@example.org about it soon.")]))
    assert any("maya.lind@example.org" in p["text"]
               for page in engine.export_pages(0, 10) for p in page["passages"])


def test_the_cli_obeys_the_rules_the_extension_sent(tmp_path, model_dir):
    """`set_rules` over the real host, then `rewind index` on the same profile: refused."""
    host = HostProcess(tmp_path, model_dir=model_dir)
    data = host.data_dir
    try:
        host.hello()
        assert host.ok("set_rules", rules={"blocklist": ["secret-folder"]})["redact"] is True
        page = {"url": "https://docs.example/secret-folder/plan", "title": "Plan",
                "passages": [{"text": " ".join(ARTICLE)}]}
        result = host.ok("index_page", page=page)["result"]
        assert result["status"] == "skipped" and result["category"] == "excluded"
    finally:
        host.close_stdin()
        host.wait_exit()
        host.stop()
    notes = tmp_path / "secret-folder"
    notes.mkdir()
    (notes / "plan.md").write_text("# Plan\n\n" + " ".join(ARTICLE))
    out = subprocess.run(
        [sys.executable, "-m", "rewind", "--data-dir", str(data), "index", str(notes),
         "--base-url", "https://docs.example/secret-folder/", "-v"],
        capture_output=True, text=True, timeout=300)
    assert "skipped" in out.stdout + out.stderr
    eng = Rewind.open(data, Settings(), writer=False)
    try:
        assert stored_urls(eng) == set()
    finally:
        eng.close()
