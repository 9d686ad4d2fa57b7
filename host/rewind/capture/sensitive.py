"""Does a page's own text look like a private account page rather than an article about one?

The host's content check, defence in depth behind the URL policy: an inbox, a statement, a
portal message or a settings page with keys is refused whatever address it came from, while an
encyclopedia page about online banking, OAuth docs or a how-to on paying off debt is kept.

The decision reads the text's own layout and personal data (`text_features`): checked card
numbers, IBANs and national IDs (or their masks, when the extension redacted them), personal fields
with a value ("Date of birth: ..."), masked account numbers ("••••4471", "ending in 5521"),
e-mail addresses, phone numbers, secrets and one-code lines, ledger lines (a date and an
amount), clock times, account-interface phrases ("available balance", "last used") and lines
made only of interface actions, and how much of the text is short lines rather than sentences.
A logistic model over them (`sensitive.json`, fitted by `bench/sensitive.py --fit` on
tests/data/sensitive_pages/ and reported there cross-validated) gives the probability.
Only a refused page is embedded, to name its category by the nearest account-page prototypes
(`sensitive.json`); without an embedder a text rule names it. (An embedding feature in the
decision was measured, docs/benchmarks.md: it refused no fewer articles, would tie the decision
to one embedding model, and would embed every page; so the decision is the text's.)
This module must never store, log or send page text, and never embed more than the title and
the first `MAX_PASSAGES` passages.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np

from .policy import Policy, Verdict, load_policy
from .redact import MASKS, find_pii, url_spans

Embed = Callable[[list[str]], np.ndarray]

MAX_PASSAGES = 12  # embedded per refused page besides the title
TEXT_FEATURES = ("strong_pii", "personal_fields", "masked_numbers", "emails", "phones", "secrets",
                 "ledger_lines", "times", "ui_phrases", "short_lines")

_I = re.IGNORECASE
_MASKED = re.compile(
    r"(?<![A-Za-z])(?:[•●*xX]{2,}[ -]?){1,3}\d{2,4}\b|\bend(?:ing|s)(?: in| with)? \d{4}\b"
    r"|\b[xX]\d{4}\b|\b[a-z]{2}-(?:[a-z]+-)?\.{3}[A-Za-z0-9]{4}\b")
_SECRET = re.compile(r"(?<![\w/.=-])[A-Za-z0-9_\-]{20,}(?![\w/.-])")
# A line holding one code and nothing else: recovery codes, key ids.
_CODE_LINE = re.compile(r"(?=[^ ]*\d)(?=[^ ]*[a-zA-Z])[A-Za-z0-9]{4,}(?:-[A-Za-z0-9]{4,})+")
# A personal-data field with its value ("Date of birth: 07/02/1989", "Member ID: NSH 448").
_PERSONAL_FIELD = re.compile(
    r"(?i:\b(?:date of birth|dob|mrn|member id|ssn|social security (?:number|no\.?)"
    r"|passport (?:number|no\.?)|national insurance number"
    r"|(?:employee|student|patient|customer|tax) id|account (?:number|no\.?)"
    r"|loan number|claim number|policy number|routing(?: number)?|licen[cs]e (?:number|no\.?)"
    r"|driver'?s licen[cs]e))\s*(?::|#)?\s*[A-Z0-9*•]")  # the value: case matters
# Interface actions; a line made of them only ("Download · Print · Copy") is interface.
_ACTIONS = frozenset((
    "reply", "reply all", "forward", "compose", "delete", "revoke", "regenerate", "download",
    "print", "copy", "share", "edit", "archive", "export", "pay now", "place order", "transfer",
    "pay bills", "submit", "launch", "manage", "sign out", "log out", "view details",
    "buy it again", "track package", "copy username", "copy password", "deactivate", "cancel",
    "save"))
_MONEY = re.compile(r"[$€£¥]\s?\d|\b\d[\d.,]*\s?(?:€|EUR|USD|GBP|CHF)\b")
_DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}\b|\b\d{1,2} "
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b\d{1,2}[/.]\d{1,2}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b(?:today|yesterday)\b", _I)
_TIME = re.compile(r"\b\d{1,2}:\d{2}(?: ?[ap]\.?m\.?)?\b", _I)
# Account-interface phrases, matched in the lower-cased text (one leading \b: fast).
_UI_PHRASES = re.compile(r"\b(?:" + "|".join((
    r"welcome(?: back)?,", r"last (?:sign[- ]?in|log[- ]?in|used|active|contacted)\b",
    r"signed in as\b", r"this device\b", r"current session\b", r"available (?:balance|credit)\b",
    r"(?:amount|balance|payment) due\b", r"due date\b", r"minimum payment\b", r"new balance\b",
    r"(?:date of birth|dob|mrn|member id|routing)\b",
    r"(?:account|loan|policy|claim|employee|student|application|order) (?:number|no\.?|id|#)",
    r"(?:revoke|regenerate|deactivate)\b", r"copy (?:password|username)\b",
    r"(?:autopay|auto refill|direct deposit)\b", r"(?:ytd|year-to-date)\b",
    r"ready for (?:pickup|collection)\b", r"this is not a bill\b",
    r"your (?:balance|recent transactions|refund|results|prescriptions|orders)\b")) + ")")
_GREETING = re.compile(r"^(?:good (?:morning|afternoon|evening)|hello|hi|welcome),? [A-Z][a-z]+,?$",
                       re.M)


def _looks_secret(token: str) -> bool:
    digits = sum(c.isdigit() for c in token)
    letters = sum(c.isalpha() for c in token)
    if digits < 4 or letters < 4 or re.fullmatch(r"[0-9a-f_\-]+", token):
        return False  # words, numbers, lower-case hex (commit ids in docs)
    low = token.lower()
    return not any(w in low for w in ("example", "your", "xxxx", "token", "key"))


def _action_line(line: str) -> bool:
    return all(p.strip().lower() in _ACTIONS for p in re.split(r"[·•|]", line))


def text_features(title: str, passages: Sequence[str]) -> dict[str, float]:
    """The layout and personal-data features of a page (no model needed)."""
    text = "\n".join([title, *passages])
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    # Personal data still in the text, and what the extension's redaction already masked.
    pii = find_pii(text)
    kinds = Counter(f.kind for f in pii)
    for kind, mask in MASKS.items():
        kinds[kind] += text.count(mask)
    emails = len({text[f.start:f.end].lower() for f in pii if f.kind == "email"})
    emails += text.count(MASKS["email"])
    urls = url_spans(text)
    secrets = sum(1 for m in _SECRET.finditer(text) if _looks_secret(m.group(0))
                  and not any(a <= m.start() < b for a, b in urls))
    secrets += sum(1 for ln in lines if _CODE_LINE.fullmatch(ln))
    short = sum(1 for ln in lines if len(ln.split()) <= 6)
    counts = {
        "strong_pii": kinds["card"] + kinds["iban"] + kinds["national_id"],
        "personal_fields": len(_PERSONAL_FIELD.findall(text)),
        "masked_numbers": len(_MASKED.findall(text)),
        "emails": emails,
        "phones": kinds["phone"],
        "secrets": secrets,
        "ledger_lines": sum(1 for ln in lines if _MONEY.search(ln) and _DATE.search(ln)),
        "times": len(_TIME.findall(text)),
        "ui_phrases": len(_UI_PHRASES.findall(text.lower())) + len(_GREETING.findall(text))
        + sum(1 for ln in lines if _action_line(ln)),
    }
    out = {k: math.log1p(v) for k, v in counts.items()}
    out["short_lines"] = short / max(1, len(lines))
    return out


@dataclass(frozen=True)
class Model:
    """A calibrated logistic model: p = sigmoid(bias + weights · (x - mean) / scale)."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float

    def probability(self, values: dict[str, float]) -> float:
        x = np.array([values[f] for f in self.features], dtype=np.float64)
        z = float(self.bias + self.weights @ ((x - self.mean) / self.scale))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def to_dict(self) -> dict:
        return {"features": list(self.features), "mean": self.mean.round(6).tolist(),
                "scale": self.scale.round(6).tolist(), "weights": self.weights.round(6).tolist(),
                "bias": round(self.bias, 6), "threshold": self.threshold}

    @classmethod
    def from_dict(cls, d: dict) -> Model:
        return cls(tuple(d["features"]), np.array(d["mean"]), np.array(d["scale"]),
                   np.array(d["weights"]), float(d["bias"]), float(d["threshold"]))


def fit(rows: Sequence[dict[str, float]], labels: Sequence[int], features: Sequence[str], *,
        l2: float = 1.0, threshold: float = 0.5) -> Model:
    """Logistic regression with an L2 penalty (Newton's method; small data, exact enough)."""
    x = np.array([[r[f] for f in features] for r in rows], dtype=np.float64)
    y = np.array(labels, dtype=np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    penalty = np.eye(z.shape[1]) * l2
    penalty[0, 0] = 0.0  # the bias is not shrunk
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -60, 60)))
        grad = z.T @ (p - y) + penalty @ w
        hess = z.T @ (z * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return Model(tuple(features), mean, scale, w[1:], float(w[0]), threshold)


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

    def probability(self, title: str, passages: Sequence[str]) -> tuple[float, dict[str, float]]:
        """How likely the page is a private account page, and the features that say so."""
        values = text_features(title, passages)
        return self.model.probability(values), values

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
        p, values = self.probability(title, passages)
        if p < self.model.threshold:
            return None
        category = self.category(title, passages, values, vectors)
        cat = self.policy.category(category)
        label, why = (cat.label, cat.why) if cat else ("Private page", "looks like a private page")
        return Verdict(category, label, why, f"content {p:.2f}: {', '.join(self.reasons(values))}")

    def reasons(self, values: dict[str, float], n: int = 3) -> list[str]:
        """The features that pushed the score up most."""
        x = np.array([values[f] for f in self.model.features])
        contrib = self.model.weights * (x - self.model.mean) / self.model.scale
        ranked = sorted(zip(contrib.tolist(), self.model.features, strict=True), reverse=True)
        return [f for c, f in ranked[:n] if c > 0]


def check_page(title: str, passages: Sequence[str], url: str, embed: Embed | None
               ) -> Verdict | None:
    """One-off check (prototypes are embedded again on each refusal: hold a ContentCheck
    when checking many pages)."""
    return ContentCheck(embed).check(title, passages, url)
