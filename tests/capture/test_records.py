"""Private records on the host: a person's record in plain article layout (a heading and
paragraphs, no menu, no sign-out) is refused in English, German and French, an article on the
same topic is recorded (tests/support/plain_records.py, never fitted on); and the generated
evaluation (bench/common/record_pages.py) is what bench/quality/records.py says: ten
languages, ten categories, three layouts, hostnames no rule list holds, held-out parts
("fresh", "audit") the shipped model was never fitted on."""

from collections import Counter

import pytest
from rewind.capture import sensitive
from rewind.capture.page_signals import PageSignals
from rewind.capture.policy import Rules, classify_url
from rewind.capture.policy_file import load_policy
from rewind.capture.redact import redact
from support.plain_records import ARTICLES, PRIVATE

from bench.common import record_pages
from bench.quality.sensitive import load_pages

CHECK = sensitive.ContentCheck()


def judge(page) -> sensitive.Judgement:
    title, passages = page.text()
    return CHECK.judge(redact(title).text, [redact(p).text for p in passages],
                       PageSignals.from_dict(page.signals()))


def test_the_plain_pages_are_on_hostnames_no_rule_list_holds():
    rules = Rules(load_policy())
    for p in PRIVATE + ARTICLES:
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


def test_the_generator_is_seeded_and_the_held_out_part_is_never_fitted_on():
    assert record_pages.HELD_OUT == ("fresh", "audit")
    assert set(record_pages.HELD_OUT).isdisjoint(record_pages.FIT_PARTS)
    assert set(record_pages.PARTS) == {*record_pages.HELD_OUT, *record_pages.FIT_PARTS}
    for part in record_pages.PARTS:
        assert record_pages.generate(part) == record_pages.generate(part)
    fitted = Counter(p.id.split("-", 1)[0] for p in load_pages())
    assert not fitted.keys() & set(record_pages.HELD_OUT)
    assert all(fitted[part] == 600 for part in record_pages.FIT_PARTS), fitted


@pytest.mark.parametrize("page", PRIVATE, ids=[p.mark for p in PRIVATE])
def test_a_record_in_plain_layout_is_refused(page):
    j = judge(page)
    assert j.action == "refuse", (j.action, round(j.probability, 3))
