"""Is a page a private screen (an inbox, a statement, a payslip, a therapist's messages, a
folder of scanned passports) rather than an article about the same thing, in any language?

The host's content check, behind the URL policy: it decides by what a page is, not where it
lives, so a self-hosted Nextcloud or a small regional bank no list holds is still refused,
while an encyclopedia page about online banking or a how-to on payslips is kept.

It reads densities of the text (content_features: personal data and fields, masked numbers,
ledger lines, times, interface phrases, file listings, doses, crypto amounts, result lines,
greetings, repeated record shapes, the strongest policy topic, a person's particulars in any
line and how many kinds of them, the words that address a reader or speak of the writer;
shares of short, sentence and code lines) and the page's own signals (page_signals: signed
in, account menu, signed out, greeting, a declared app, a composer), plus products: a
sensitive topic shown as a screen or while signed in, and the particulars told to a reader,
noted by a writer, or framed as an article's example ("for example" counts only there). A
logistic model over them (`sensitive.json`, fitted by `python -m bench.quality.sensitive
--fit` on tests/data/sensitive_pages/, the record pages of bench/common/record_pages.FIT_PARTS
and real documentation and encyclopedia pages in several languages; its cross-validated
rates are in docs/benchmarks.md) gives a probability, and two thresholds make three answers:
record, hold (unsure: the person decides, profile/holding.py), refuse. A page is judged in
windows of `content_features.WINDOW` passages (a browser page is one window; a long file is
refused or held by its most private window). The category is the one whose topic words,
record shapes and declared app the page shows most; a page of a category the person
switched off is recorded.
This module must never store, log or send page text.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np

from .. import logistic
from ..logistic import Logistic
from . import content_features as cf
from .content_lexicon import Lexicon, lexicon
from .page_signals import SIGNAL_FEATURES, PageSignals, declared_categories, signal_features
from .policy import Verdict
from .policy_file import Policy, load_policy

INTERACTIONS = ("topic_x_short", "topic_x_numbers", "topic_x_signed_in",
                "address_x_particulars", "self_x_particulars", "framing_x_particulars")
# An article's framing ("for example", "z. B.") speaks only of the figures it frames: on its
# own it would count against every page that does not use it, documentation included.
ONLY_IN_PRODUCTS = ("framing_words",)
TEXT_FEATURES = tuple(f for f in cf.FEATURES if f not in ONLY_IN_PRODUCTS)
FEATURES = TEXT_FEATURES + SIGNAL_FEATURES + INTERACTIONS
GENERIC = ("private", "Private page", "looks like a private page")  # no category's cues
# How much a record shape or a declared app says for a category, besides its topic words.
_SHAPES = {"file_lines": ("files", 2.0), "ledger_lines": ("finance", 1.0),
           "masked_numbers": ("finance", 1.0), "crypto_lines": ("crypto", 3.0),
           "dose_lines": ("health", 2.0), "result_lines": ("search", 3.0),
           "secrets": ("account", 2.0)}
APP_WEIGHT = 5.0
_TEXT_COLUMNS = [cf.FEATURES.index(f) for f in TEXT_FEATURES]


def window_matrix(counts: np.ndarray, signals: PageSignals | None,
                  lex: Lexicon | None = None, policy: Policy | None = None) -> np.ndarray:
    """`FEATURES` of each window of counts (rows), the page's signals on every window."""
    text = cf.feature_matrix(counts)
    sig = np.tile(signal_features(signals, lex, policy), (len(text), 1))

    def col(name: str) -> np.ndarray:
        return text[:, cf.FEATURES.index(name)]

    topic, particulars = col("topic"), col("particulars")
    signed_in = sig[:, SIGNAL_FEATURES.index("signed_in")]
    products = [topic * col("short_lines"), topic * col("number_lines"), topic * signed_in,
                col("address_words") * particulars, col("self_words") * particulars,
                col("framing_words") * particulars]
    return np.hstack([text[:, _TEXT_COLUMNS], sig, np.stack(products, axis=1)])


@dataclass(frozen=True)
class Windows:
    """A page cut into windows: their first passage, their counts and their features."""

    starts: list[int]
    counts: np.ndarray  # one row of content_features.counts_names() per window
    features: np.ndarray  # one row of FEATURES per window


def page_windows(title: str, passages: Sequence[str], signals: PageSignals | None = None,
                 lex: Lexicon | None = None) -> Windows:
    """The windows the check judges (one for a page of at most `WINDOW` passages)."""
    rows = cf.page_counts(title, passages, lex, signals.lang if signals else "")
    counts = cf.windows(rows)
    return Windows(cf.window_starts(len(passages)), counts,
                   window_matrix(counts, signals, lex))


@dataclass(frozen=True)
class Model(Logistic):
    """The logistic model (logistic.py) and the probabilities at which a page is held and
    refused."""

    hold: float = 0.5
    refuse: float = 0.5

    def to_dict(self) -> dict:
        return {**super().to_dict(), "hold": self.hold, "refuse": self.refuse}

    @classmethod
    def from_dict(cls, d: dict) -> Model:
        m = Logistic.from_dict(d)
        return cls(m.features, m.mean, m.scale, m.weights, m.bias, float(d["hold"]),
                   float(d["refuse"]))

    def decide(self, p: float) -> str:
        return "refuse" if p >= self.refuse else "hold" if p >= self.hold else "record"


def fit(x: np.ndarray, labels: Sequence[int], features: Sequence[str] = FEATURES, *,
        sample_weight: Sequence[float] | None = None, l2: float = 1.0, hold: float = 0.5,
        refuse: float = 0.5) -> Model:
    """Weighted logistic regression with an L2 penalty (logistic.fit); `x`: one row per
    example, columns `features`."""
    m = logistic.fit(x, labels, features, sample_weight=sample_weight, l2=l2)
    return Model(m.features, m.mean, m.scale, m.weights, m.bias, hold, refuse)


def load_params() -> dict:
    """The fitted model as shipped (sensitive.json)."""
    text = resources.files(__package__).joinpath("sensitive.json").read_text(encoding="utf-8")
    return json.loads(text)


@dataclass(frozen=True)
class Judgement:
    """What the check made of a page: "record", "hold" or "refuse", how likely it is
    private, its category, and the features of its most private window."""

    action: str
    probability: float
    category: str
    values: dict[str, float]
    start: int  # the first passage of that window


class ContentCheck:
    """The content check with its model, the policy (categories) and the lexicon."""

    def __init__(self, *, params: dict | None = None, policy: Policy | None = None,
                 model: Model | None = None, lex: Lexicon | None = None) -> None:
        self.policy = policy if policy is not None else load_policy()
        self.model = model or Model.from_dict((params or load_params())["model"])
        self.lexicon = lex or lexicon()
        self._cols = [FEATURES.index(f) for f in self.model.features]

    def judge(self, title: str, passages: Sequence[str], signals: PageSignals | None = None,
              disabled: Collection[str] = ()) -> Judgement:
        """The check's answer for a page; a page whose category the person switched off
        is recorded."""
        win = page_windows(title, passages, signals, self.lexicon)
        probs = self.model.probabilities(win.features[:, self._cols])
        best = int(np.argmax(probs))
        p = float(probs[best])
        values = dict(zip(FEATURES, win.features[best].tolist(), strict=True))
        action = self.model.decide(p)
        category = self.category(win.counts[best], signals) if action != "record" else ""
        if category in disabled:
            action = "record"
        return Judgement(action, p, category, values, win.starts[best])

    def check_titles(self, titles: Sequence[str], disabled: Collection[str] = ()
                     ) -> list[Verdict | None]:
        """`check(title, [])` of many pages at once (a history import: titles alone, no
        signals): the same answers, with one feature matrix instead of one a page."""
        if not titles:
            return []
        counts = np.array([cf.page_counts(t, [], self.lexicon)[0] for t in titles])
        probs = self.model.probabilities(window_matrix(counts, None, self.lexicon)[:, self._cols])
        return [None if self.model.decide(float(p)) == "record" else
                self.check(t, [], None, disabled) for t, p in zip(titles, probs, strict=True)]

    def category(self, counts: np.ndarray, signals: PageSignals | None = None) -> str:
        """The policy category a window shows most (its topic words, record shapes and
        declared app), or "private" when it shows none."""
        ids = [c.id for c in self.policy.categories]
        scores = dict.fromkeys(ids, 0.0)
        scores.update({t: float(v) for t, v in zip(cf.topics(), cf.topic_counts(counts)[0],
                                                    strict=True) if t in scores})
        for name, (cat, weight) in _SHAPES.items():
            if cat in scores:
                scores[cat] += weight * float(cf.count(counts, name)[0])
        for cat in declared_categories(signals, self.policy):
            scores[cat] += APP_WEIGHT
        best = max(ids, key=lambda c: scores[c])  # ties: the policy's order
        return best if scores[best] > 0 else GENERIC[0]

    def check(self, title: str, passages: Sequence[str], signals: PageSignals | None = None,
              disabled: Collection[str] = ()) -> Verdict | None:
        """A Verdict (`hold` set when unsure) when the page looks private, else None."""
        j = self.judge(title, passages, signals, disabled)
        if j.action == "record":
            return None
        cat = self.policy.category(j.category)
        label, why = (cat.label, cat.why) if cat else GENERIC[1:]
        return Verdict(j.category, label, why,
                       f"content {j.probability:.2f}: {', '.join(self.reasons(j.values))}",
                       hold=j.action == "hold")

    def reasons(self, values: dict[str, float], n: int = 3) -> list[str]:
        """The features that pushed the score up most ("few sentence_lines" when a feature
        that speaks for an article is low)."""
        x = np.array([values[f] for f in self.model.features])
        contrib = self.model.weights * (x - self.model.mean) / self.model.scale
        ranked = sorted(zip(contrib.tolist(), self.model.features, self.model.weights.tolist(),
                            strict=True), reverse=True)
        return [f if w > 0 else f"few {f}" for c, f, w in ranked[:n] if c > 0]
