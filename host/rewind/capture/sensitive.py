"""Does a page's own text look like a private account page rather than an article about one?

The host's content check, defence in depth behind the URL policy: an inbox, a statement, a
portal message or a settings page with keys is refused whatever address it came from, while an
encyclopedia page about online banking, OAuth docs or a how-to on paying off debt is kept.

The decision reads densities of the text's own layout and personal data (content_features:
masked account numbers, personal fields, e-mail addresses, phones, secrets, ledger lines,
clock times, interface phrases per 1,000 words; shares of short, sentence and code lines), so
a long page does not pile up evidence that a short one lacks. A logistic model over them
(`sensitive.json`, fitted by `bench/sensitive.py --fit` on tests/data/sensitive_pages/ and on
real documentation and encyclopedia pages, reported there cross-validated and on held-out
corpora) gives the probability. A page is judged in windows of `content_features.WINDOW`
passages (a browser page is one window; a long file is refused if any window looks like an
account page). Only a refused page is embedded, to name its category by the nearest
account-page prototypes (`sensitive.json`); without an embedder a text rule names it.
This module must never store, log or send page text, and never embed more than the title and
the first `MAX_PASSAGES` passages of the refused window.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np

from .. import logistic
from ..logistic import Logistic
from . import content_features as cf
from .policy import Policy, Verdict, load_policy

Embed = Callable[[list[str]], np.ndarray]

MAX_PASSAGES = 12  # embedded per refused page besides the title
TEXT_FEATURES = cf.FEATURES


@dataclass(frozen=True)
class Windows:
    """A page cut into windows: their first passage, their counts and their features."""

    starts: list[int]
    counts: np.ndarray  # one row of content_features.COUNTS per window
    features: np.ndarray  # one row of TEXT_FEATURES per window


def page_windows(title: str, passages: Sequence[str]) -> Windows:
    """The windows the check judges (one for a page of at most `WINDOW` passages)."""
    rows = cf.page_counts(title, passages)
    starts = cf.window_starts(len(passages))
    counts = cf.windows(rows)
    return Windows(starts, counts, cf.feature_matrix(counts))


def text_features(title: str, passages: Sequence[str]) -> dict[str, float]:
    """The features of a page taken as one window (whatever its length)."""
    return cf.features(cf.page_counts(title, passages).sum(axis=0))


@dataclass(frozen=True)
class Model(Logistic):
    """The content check's logistic model (logistic.py) and the probability it refuses at."""

    threshold: float = 0.5

    def to_dict(self) -> dict:
        return {**super().to_dict(), "threshold": self.threshold}

    @classmethod
    def from_dict(cls, d: dict) -> Model:
        m = Logistic.from_dict(d)
        return cls(m.features, m.mean, m.scale, m.weights, m.bias, float(d["threshold"]))


def fit(x: np.ndarray, labels: Sequence[int], features: Sequence[str], *,
        sample_weight: Sequence[float] | None = None, l2: float = 1.0,
        threshold: float = 0.5) -> Model:
    """Weighted logistic regression with an L2 penalty (logistic.fit); `x`: one row per
    example, columns `features`."""
    m = logistic.fit(x, labels, features, sample_weight=sample_weight, l2=l2)
    return Model(m.features, m.mean, m.scale, m.weights, m.bias, threshold)


def load_params() -> dict:
    """Prototypes and the calibrated model as shipped (sensitive.json)."""
    text = resources.files(__package__).joinpath("sensitive.json").read_text(encoding="utf-8")
    return json.loads(text)


class ContentCheck:
    """The content check; keeps the prototypes' vectors once the embedder computed them."""

    def __init__(self, embed: Embed | None = None, *, params: dict | None = None,
                 policy: Policy | None = None, model: Model | None = None) -> None:
        self.params = params if params is not None else load_params()
        self.policy = policy if policy is not None else load_policy()
        self.embed = embed
        self.model = model or Model.from_dict(self.params["model"])
        self._prototypes: tuple[np.ndarray, list[str]] | None = None

    def probability(self, title: str, passages: Sequence[str]
                    ) -> tuple[float, dict[str, float], int]:
        """How likely the page is a private account page (its most likely window), the
        features that say so and the index of that window's first passage."""
        win = page_windows(title, passages)
        cols = [TEXT_FEATURES.index(f) for f in self.model.features]
        probs = self.model.probabilities(win.features[:, cols])
        best = int(np.argmax(probs))
        values = dict(zip(TEXT_FEATURES, win.features[best].tolist(), strict=True))
        return float(probs[best]), values, win.starts[best]

    def category(self, title: str, passages: Sequence[str], values: dict[str, float],
                 vectors: np.ndarray | None = None) -> str:
        """The policy category of a refused page. `vectors`: the embeddings of the title and
        the passages if the caller has them already (title first)."""
        if values["secrets"] > 0:
            return "account"
        if self.embed is None:
            if values["ledger_lines"] > 0 or values["masked_numbers"] > 0:
                return "finance"
            return "mail" if values["emails"] > 0 or values["times"] > 0 else "account"
        if self._prototypes is None:
            protos = self.params["prototypes"]
            self._prototypes = (np.asarray(self.embed([t for ts in protos.values() for t in ts])),
                                [c for c, ts in protos.items() for _ in ts])
        protos_v, cats = self._prototypes
        if vectors is None:
            vectors = self.embed([t for t in [title, *passages[:MAX_PASSAGES]] if t.strip()])
        sims = np.asarray(vectors)[: MAX_PASSAGES + 1] @ protos_v.T
        best: dict[str, float] = {}
        for j, c in enumerate(cats):
            best[c] = max(best.get(c, -1.0), float(sims[:, j].mean()))
        return max(best, key=lambda c: best[c])

    def check(self, title: str, passages: Sequence[str], url: str = "",
              vectors: np.ndarray | None = None) -> Verdict | None:
        """A Verdict when the page looks like a private account page, else None. The
        decision is the text's; `url` is not read (pages from any source are checked alike)."""
        p, values, start = self.probability(title, passages)
        if p < self.model.threshold:
            return None
        if vectors is not None:  # the refused window's rows, the title's first
            vectors = np.vstack([vectors[:1], vectors[1 + start: 1 + start + MAX_PASSAGES]])
        category = self.category(title, passages[start:], values, vectors)
        cat = self.policy.category(category)
        label, why = (cat.label, cat.why) if cat else ("Private page", "looks like a private page")
        return Verdict(category, label, why, f"content {p:.2f}: {', '.join(self.reasons(values))}")

    def reasons(self, values: dict[str, float], n: int = 3) -> list[str]:
        """The features that pushed the score up most ("few sentence_lines" when a feature
        that speaks for an article is low)."""
        x = np.array([values[f] for f in self.model.features])
        contrib = self.model.weights * (x - self.model.mean) / self.model.scale
        ranked = sorted(zip(contrib.tolist(), self.model.features, self.model.weights.tolist(),
                            strict=True), reverse=True)
        return [f if w > 0 else f"few {f}" for c, f, w in ranked[:n] if c > 0]


def check_page(title: str, passages: Sequence[str], url: str, embed: Embed | None
               ) -> Verdict | None:
    """One-off check (prototypes are embedded again on each refusal: hold a ContentCheck
    when checking many pages)."""
    return ContentCheck(embed).check(title, passages, url)
