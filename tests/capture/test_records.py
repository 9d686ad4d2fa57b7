"""Issue 37 on the host: a person's record in plain article layout (a heading and paragraphs,
no menu, no sign-out) is refused in English, German and French, an article on the same topic
is recorded, a borderline note is held (tests/support/plain_records.py, never fitted on); and the
generated evaluation (bench/common/record_pages.py) is what bench/quality/records.py says:
ten languages, ten categories, three layouts, hostnames no rule list holds, two held-out parts
("heldout", "fresh") the shipped model was never fitted on."""

from collections import Counter

import pytest
from rewind.capture import sensitive
from rewind.capture.page_signals import PageSignals
from rewind.capture.policy import Rules, classify_url
from rewind.capture.policy_file import load_policy
from rewind.capture.redact import redact
from support.plain_records import ARTICLES, BORDERLINE, PRIVATE

from bench.common import record_pages
from bench.quality.sensitive import load_pages

CHECK = sensitive.ContentCheck()


def judge(page) -> sensitive.Judgement:
    title, passages = page.text()
    return CHECK.judge(redact(title).text, [redact(p).text for p in passages],
                       PageSignals.from_dict(page.signals()))


def test_the_plain_pages_are_on_hostnames_no_rule_list_holds():
    rules = Rules(load_policy())
    for p in PRIVATE + ARTICLES + BORDERLINE:
        assert classify_url(p.url, rules) is None, p.url
    have = {(p.lang, p.category) for p in PRIVATE}
    assert {(lang, cat) for lang in ("en", "de", "fr")
            for cat in ("health", "finance", "payroll", "chat")} <= have


@pytest.mark.parametrize("page", ARTICLES, ids=[p.mark for p in ARTICLES])
def test_an_article_in_plain_layout_is_recorded(page):
    j = judge(page)
    assert j.action == "record", round(j.probability, 3)


def test_the_evaluation_has_ten_languages_ten_categories_three_layouts():
    for part in record_pages.PARTS:
        pages = record_pages.generate(part)
        assert sum(p.sensitive for p in pages) >= 300
        assert sum(not p.sensitive for p in pages) >= 300
        assert len({p.lang for p in pages}) >= 10 and len({p.category for p in pages}) >= 10
        assert set(Counter(record_pages.layout_of(p) for p in pages)) == set(
            record_pages.LAYOUTS)
        rules = Rules(load_policy())
        assert not [p.url for p in pages if classify_url(p.url, rules)]


def test_the_generator_is_seeded_and_the_held_out_parts_are_never_fitted_on():
    assert set(record_pages.HELD_OUT) == {"heldout", "fresh"} <= set(record_pages.PARTS)
    for part in record_pages.HELD_OUT:
        assert record_pages.generate(part) == record_pages.generate(part)
    held_out = tuple(f"{part}-" for part in record_pages.HELD_OUT)
    assert not any(p.id.startswith((*held_out, "tune-")) for p in load_pages())
