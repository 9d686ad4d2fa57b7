"""A passage's quality: one definition in two languages.

The extension's content/quality.js computes the same number for the pages it reads, and
the cases both test suites read (tests/data/passage_quality.json) pin the two together.
Quality is judged on what a passage is made of: its words, whether it has a heading, how
much of its text is list items, links or navigation, whether it has a full sentence, and
boilerplate (cookie banners, copyright lines). Each side measures those from what it
has: the extension from the DOM, capture/chunker.py from the extracted blocks (which hold
no links and no navigation: extract.py leaves nav, header, footer and aside out).
Answers weigh it in (answers/context.py); the extension drops passages under its floor.
This module must never read anything but the numbers and the text it is given.
"""

from __future__ import annotations

import math
import re

# The same expressions as content/quality.js, spelt so that Python reads them as JS does:
# case folded in ASCII only (JS's /i leaves "ſ" and the Kelvin sign alone), JS's \s as a
# class (Python's also takes \x1c-\x1f and \x85), \Z for JS's $ (no m flag).
BOILERPLATE = re.compile(
    r"(cookie|privacy policy|terms of (use|service)|all rights reserved|©|copyright [0-9]|"
    r"subscribe to|sign up for|newsletter|accept all|skip to (main )?content|follow us)",
    re.IGNORECASE | re.ASCII)
_JS_SPACE = r"[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
# CJK full stops need no space after them.
SENTENCE_END = re.compile(rf"[.!?…][\"')\]»”’]?({_JS_SPACE}|\Z)|[。！？]")


def passage_quality(text: str, words: int, *, heading: bool = False, chars: int = 0,
                    list_chars: int = 0, link_chars: int = 0, nav_chars: int = 0) -> float:
    """0..1: length, a heading, a list and full sentences raise it; link-heavy, navigation
    and boilerplate text lower it. `chars` is the passage's own text (whitespace between
    its pieces aside); `list_chars`, `link_chars` and `nav_chars` the part of it in list
    items, links and navigation. Rounded to 3 decimals, half up, as Math.round does."""
    q = 0.5
    if words >= 40:
        q += 0.15
    elif words >= 20:
        q += 0.05
    elif words < 12:
        q -= 0.15
    if heading:
        q += 0.1
    if chars > 0 and list_chars / chars > 0.3:
        q += 0.05
    if SENTENCE_END.search(text):
        q += 0.1
    link_density = link_chars / chars if chars > 0 else 0
    if link_density > 0.3:
        q -= 0.45 * link_density
    nav_share = nav_chars / chars if chars > 0 else 0
    q -= 0.3 * nav_share
    if BOILERPLATE.search(text):
        q -= 0.2
    scaled = min(1.0, max(0.0, q)) * 1000
    whole = math.floor(scaled)
    return (whole + (scaled - whole >= 0.5)) / 1000
