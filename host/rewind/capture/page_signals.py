"""What a page says about itself beyond its text, as the extension reads it from the DOM, and
what the content check makes of it.

The extension's content script (extension/content/signals.js) sends, with a page's passages:
`lang` (the page's declared language), `app` (names the page declares: application-name,
apple-mobile-web-app-title, og:site_name, generator), `manifest` (it links a web app
manifest), `controls` (the labels of its links, buttons and menu items, and "href:<word>"
for a link's last path segment — a sign-out link is often only an address) and `editors`
(text areas one can type in: a message composer). Controls are read even where Readability
drops them (headers, menus), since "Abmelden" and "Hallo, Anna" live there.
`signal_features` turns them into the check's numbers, in any language: a sign-out control
(signed in), an account menu, a greeting of a person, an app of a policy category declared,
a place to type. (A sign-in control says little: adult sites and search engines show one to
visitors, and so does every encyclopedia.) A page without signals (a file from `rewind
index`) reads as all zeros.
This module must never keep, log or send what a page sends; it treats it as hostile input
(bounded, typed) and returns numbers and category ids only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .content_lexicon import Lexicon, clean, lexicon
from .policy_file import Policy, load_policy

SIGNAL_FEATURES = ("signed_in", "account_menu", "greeted", "app_declared", "editor")
MAX_CONTROLS, MAX_APPS, MAX_CHARS = 200, 6, 100  # as the request schema allows


@dataclass(frozen=True)
class PageSignals:
    lang: str = ""
    app: tuple[str, ...] = ()
    manifest: bool = False
    controls: tuple[str, ...] = ()
    editors: int = 0

    @classmethod
    def from_dict(cls, raw: Mapping | None) -> PageSignals | None:
        """From the request (checked by its schema) or a labelled page; None stays None.
        Anything over the limits is cut, anything of the wrong type ignored."""
        if not isinstance(raw, Mapping):
            return None

        def strings(value: object, limit: int) -> tuple[str, ...]:
            if not isinstance(value, list | tuple):
                return ()
            return tuple(v[:MAX_CHARS] for v in value[:limit] if isinstance(v, str) and v)

        lang = raw.get("lang")
        editors = raw.get("editors")
        return cls(lang[:16] if isinstance(lang, str) else "",
                   strings(raw.get("app"), MAX_APPS), raw.get("manifest") is True,
                   strings(raw.get("controls"), MAX_CONTROLS),
                   editors if isinstance(editors, int) and 0 <= editors <= 1000 else 0)


def declared_categories(signals: PageSignals | None, policy: Policy | None = None) -> list[str]:
    """Policy categories whose app names the page declares ("Nextcloud" -> files)."""
    if signals is None or not signals.app:
        return []
    policy = policy or load_policy()
    declared = [clean(a).split() for a in signals.app]
    out = []
    for cat in policy.categories:
        for app in cat.apps:
            want = clean(app).split()
            if want and any(_contains(d, want) for d in declared):
                out.append(cat.id)
                break
    return out


def _contains(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[i:i + n] == phrase for i in range(len(words) - n + 1))


def signal_features(signals: PageSignals | None, lex: Lexicon | None = None,
                    policy: Policy | None = None) -> np.ndarray:
    """`SIGNAL_FEATURES` of one page: 1.0 where the page shows it, else 0.0."""
    out = np.zeros(len(SIGNAL_FEATURES))
    if signals is None:
        return out
    lex = lex or lexicon()
    keys: set[str] = set()
    greeted = False
    for control in signals.controls:
        cleaned = clean(control)
        hits = lex.scan(cleaned)
        keys.update(h.key for h in hits)
        greeted = greeted or lex.greets(cleaned, hits)
    values = {
        "signed_in": "signout" in keys,
        "account_menu": "account" in keys,
        "greeted": greeted,
        "app_declared": bool(declared_categories(signals, policy)),
        "editor": signals.editors > 0,
    }
    return np.array([float(values[f]) for f in SIGNAL_FEATURES])
