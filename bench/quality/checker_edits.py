"""Edits of one true sentence, for the citation checker's labelled set (checker_set.py).

Job: rule-made rewordings that keep the claim (every content word of the result is one of
the original sentence's, as written: no stems to guess) and near misses that change it in
one named way: a number, a command, an identifier, a name, a negation, a clause added.
Each function returns the edited sentence and what it changed, or None when the sentence
has nothing its rule can edit; a near miss is only made when what it brings in is in
neither the cited passage nor the question (so an "unsupported" label is honest).
Never: guess a meaning-changing edit and call it faithful, or draw randomness from
anywhere but the `random.Random` it is given.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from rewind.text import STOP_WORDS, content_words, names, sentences, spaced_words

Edit = tuple[str, str]  # (edited sentence, what changed)

# ---- which sentences are claims ---------------------------------------------------------

_DENSE_LANGS = ("ja", "zh")


def claim_sentences(passage: str, lang: str = "en") -> list[str]:
    """The sentences of a passage that read as claims: ended by a full stop after a word of
    two letters or more (not "p." of "p. ej." cut short), long enough, brackets and quotes
    closed, not a question (what an answer could fairly repeat)."""
    out = []
    for s in sentences(passage):
        if lang in _DENSE_LANGS:
            if s.endswith("。") and 12 <= len(s) <= 160:
                out.append(s)
            continue
        n = len(spaced_words(s))
        if (6 <= n <= 45 and re.search(r"\w{2,}[\"'”’)]?[.!]$", s) and s[0].isupper()
                and _balanced(s)
                and len(content_words(s)) >= 3 and "?" not in s):
            out.append(s)
    return out


def _balanced(s: str) -> bool:
    return s.count("(") == s.count(")") and s.count("[") == s.count("]") and not (
        s.count('"') % 2) and s.count("“") == s.count("”")


def fluent(s: str) -> bool:
    """Prose, not code: at least 80% of its words are plain words, no code punctuation."""
    toks = spaced_words(s)
    plain = [t for t in toks if re.fullmatch(r"[(\"“‘']?[A-Za-z][a-z'’-]*[)\"”’',.;:!]*", t)]
    return bool(toks) and len(plain) >= 0.8 * len(toks) and not re.search(r"[{}=<>*/\\]", s)


def _end(s: str) -> tuple[str, str]:
    m = re.search(r"[.!。]+$", s)
    return (s[: m.start()], m.group()) if m else (s, ".")


def _new(token: str, passage: str, question: str) -> bool:
    """Whether `token` is in neither the passage nor the question, as written, and brings a
    content word that neither has."""
    low = token.lower()
    if low in passage.lower() or low in question.lower():
        return False
    return bool(content_words(token) - content_words(f"{passage} {question}"))


# ---- faithful rewordings (supported) ----------------------------------------------------

_SUBORDINATE = r"If|When|Whenever|Although|Though|Because|Since|Unless|While|Once|After|Before"
_LEAD = re.compile(rf"^({_SUBORDINATE})\s+([^,;:()]{{3,}}?),\s+([a-z][^;:]*?)([.!])$")
_TRAIL = re.compile(r"^([A-Z][^,;:]*?),?\s+(because|if|unless)\s+(?!of\b)"
                    r"([^,;:]{3,}?)([.!])$")
_MARKER = re.compile(r"^(?:However|Also|Additionally|In general|Generally|In practice|"
                     r"Note that|For example|For instance|Of course|In fact),?\s+(?=[a-zA-Z])")
_PAREN = re.compile(r"\s*\([^()]{2,80}\)")


def paraphrase(s: str) -> Edit | None:
    """A faithful rewording: a leading condition moved to the end ("If X, Y." -> "Y if X.")
    or back ("The Y if X." -> "If X, the Y."), a discourse marker dropped ("However, "),
    or a parenthetical aside dropped. The claim and its condition are kept."""
    m = _LEAD.match(s)
    if m and len(m.group(3).split()) >= 3:
        sub, cond, main, end = m.groups()
        return f"{main[0].upper()}{main[1:]} {sub.lower()} {cond}{end}", "condition moved last"
    m = _TRAIL.match(s)
    if m and m.group(1).split()[0].lower() in STOP_WORDS and len(m.group(1).split()) >= 3:
        main, sub, cond, end = m.groups()
        return f"{sub.capitalize()} {cond}, {main[0].lower()}{main[1:]}{end}", \
            "condition moved first"
    m = _MARKER.match(s)
    if m:
        rest = s[m.end():]
        return rest[0].upper() + rest[1:], f"dropped {m.group().strip()!r}"
    m = _PAREN.search(s)
    if m and len(spaced_words(s[: m.start()] + s[m.end():])) >= 6:
        return s[: m.start()] + s[m.end():], f"dropped {m.group().strip()!r}"
    return None


_CLAUSE_BREAK = re.compile(r"(?:,\s+(?=(?:which|but|and|so|because|as)\b)|;\s+|\s+[—–]\s+)")
_OPENS_SUBORDINATE = re.compile(rf"^(?:{_SUBORDINATE}|As|For|To|In|With)\b")


def prefix(s: str) -> Edit | None:
    """The sentence up to its first clause boundary (", which", ", but", ";", " — "): the
    main clause, still said by the passage. Never after a condition ("unless", "except")."""
    if _OPENS_SUBORDINATE.match(s):
        return None
    m = _CLAUSE_BREAK.search(s)
    if not m:
        return None
    head = s[: m.start()].rstrip()
    if "," in head and len(head.rsplit(",", 1)[1].split()) <= 3:
        return None  # a list cut short ("of C, Fortran"): not always the claim
    if (len(spaced_words(head)) < 5 or len(content_words(head)) < 3
            or head.count("(") != head.count(")") or head.count('"') % 2):
        return None
    return head + ".", f"cut at {m.group().strip()!r}"


_STOP_SWAPS = [
    (r"\bdo not\b", "don't"), (r"\bdon't\b", "do not"), (r"\bdoes not\b", "doesn't"),
    (r"\bdoesn't\b", "does not"), (r"\bis not\b", "isn't"), (r"\bisn't\b", "is not"),
    (r"\bare not\b", "aren't"), (r"\bcannot\b", "can't"), (r"\bcan't\b", "cannot"),
    (r"\bwill not\b", "won't"), (r"\b[Ii]n order to\b", "to"), (r"\bvery\s+", ""),
    (r"\balso\s+", ""), (r"\bjust\s+", ""),
]


def stopwords(s: str) -> Edit | None:
    """Stop words changed, nothing else: contractions made or undone, "in order to" ->
    "to", "also"/"just"/"very" dropped."""
    out, done = s, []
    for pat, repl in _STOP_SWAPS:
        new = re.sub(pat, repl, out, count=1)
        if new != out:
            done.append(f"{pat}->{repl or '(none)'}")
            out = new
            if len(done) == 2:
                break
    if not done or content_words(out) - content_words(s):
        return None
    return out[0].upper() + out[1:], "; ".join(done)


# ---- near misses (unsupported) ----------------------------------------------------------

_NUMBER = re.compile(r"(?<!\w\()(?<![\w.\-/,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w\-/]|[.,]\d)")


def change_number(s: str, passage: str, question: str, rng: random.Random) -> Edit | None:
    """One number of the sentence changed to one the passage and question do not contain."""
    found = list(_NUMBER.finditer(s))
    if not found:
        return None
    m = rng.choice(found)
    old = m.group(1)
    if "." in old:
        head, tail = old.rsplit(".", 1)
        cands = [f"{head}.{int(tail) + k}" for k in (1, 2, 3)]
    else:
        n = int(old.replace(",", ""))
        fmt = "{:,}" if "," in old else "{}"
        cands = [fmt.format(x) for x in (n + 1, n + 2, n * 2 + 1, n + 10) if x != n]
    for new in cands:
        if new not in passage and new not in question:
            return s[: m.start(1)] + new + s[m.end(1):], f"{old} -> {new}"
    return None


def _swap(s: str, found: Sequence[tuple[int, int, str]], pool: Sequence[str], passage: str,
          question: str, rng: random.Random) -> Edit | None:
    if not found:
        return None
    start, end, old = rng.choice(list(found))
    cands = [p for p in pool if p.lower() != old.lower() and _new(p, passage, question)]
    if not cands:
        return None
    new = rng.choice(cands)
    return s[:start] + new + s[end:], f"{old} -> {new}"


def change_token(s: str, pool: Sequence[str], passage: str, question: str,
                 rng: random.Random) -> Edit | None:  # fmt: skip
    """A token of `pool` (commands, or identifiers) in the sentence swapped for another of
    the pool that neither the passage nor the question has."""
    have = set(pool)
    found = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(s) if m.group() in have]
    return _swap(s, found, pool, passage, question, rng)


def change_name(s: str, pool: Sequence[str], passage: str, question: str,
                rng: random.Random) -> Edit | None:  # fmt: skip
    """A proper name of the sentence (a capitalised word not opening it, in the pool)
    swapped for another name of the pool."""
    have = set(pool) & set(names(s))
    found = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\b[A-Z][\w'-]+", s)
             if m.group() in have and m.start() > 0]
    return _swap(s, found, pool, passage, question, rng)


def add_claim(s: str, other: str, passage: str, question: str) -> Edit | None:
    """A true sentence with a clause from another page appended (", and ..."), when that
    clause brings at least three content words the passage and question lack."""
    body, _ = _end(other)
    m = _MARKER.match(body)
    body = body[m.end():] if m else body
    fresh = content_words(body) - content_words(f"{passage} {question}")
    if len(fresh) < 3:
        return None
    first = body.split()[0]
    if first[1:].islower() and first.isalpha():  # "Introduce", "The"; not "SQLite", "I"
        body = first.lower() + body[len(first):]
    head, end = _end(s)
    return f"{head}, and {body}{end}", f"appended {body[:60]!r}"


# ---- negation ----------------------------------------------------------------------------

_AUX = r"is|are|was|were|can|will|should|must|could|would|may|might|does|do|did|has|have"
_NEGATIONS: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {
    # lang: ([(pattern, replacement) that remove a negation], [... that add one])
    "en": ([(r"\bcannot\b", "can"), (r"\bcan['’]t\b", "can"), (r"\bwon['’]t\b", "will"),
            (rf"\b({_AUX})n['’]t\b", r"\1"), (rf"\b({_AUX}) not\b", r"\1"),
            (r"\bnever\s+", "")],
           [(r"\bcan\b", "cannot"), (rf"\b({_AUX})\b", r"\1 not")]),
    "de": ([(r"\bnicht\s+", ""), (r"\bkein(e|en|em|er|es)?\b", r"ein\1")],
           [(r"\b(ist|sind|kann|können|wird|werden|muss|müssen|sollte|soll|darf|hat|haben)\b",
             r"\1 nicht")]),
    "fr": ([(r"\bne\s+(\S+)\s+pas\b", r"\1"), (r"\bn['’](\S+)\s+pas\b", r"\1")],
           [(r"(?<=\s)(est|ont)(?![\w’'-])", r"n'\1 pas"),  # not "c’est-à-dire"
            (r"(?<=\s)(sont|peut|peuvent|doit|doivent|fait|font)(?![\w’'-])", r"ne \1 pas")]),
    "es": ([(r"\bno\s+", "")],
           [(r"\b(es|son|puede|pueden|debe|deben|está|están|tiene|tienen|hay)\b", r"no \1")]),
    "it": ([(r"\bnon\s+", "")],
           [(r"(?<!\w)(è|sono|può|possono|deve|devono|ha|hanno)(?!\w)", r"non \1")]),
    "zh": ([(r"没有", "有"), (r"不(是|能|会|需要|可以|应该)", r"\1")],
           [(r"(?<![但还于总要就也凡或])是", "不是"), (r"(可以|需要|应该)", r"不\1")]),
    "ja": ([(r"ではありません", "です"), (r"ません", "ます")],
           [(r"です。$", "ではありません。"), (r"ます。$", "ません。")]),
}
LANGS_NEGATED = tuple(_NEGATIONS)


def negate(s: str, lang: str = "en") -> Edit | None:
    """A negation removed (when the sentence has one) or added to its first auxiliary, in
    the sentence's language; None for a language without rules or a sentence without a
    place for one."""
    if lang not in _NEGATIONS:
        return None
    remove, add = _NEGATIONS[lang]
    flags = re.IGNORECASE if lang == "en" else 0
    if lang == "en" and not any(re.search(p, s, flags) for p, _ in remove) and re.search(
            r"\b(no|none|nothing|neither|nor|without|nobody)\b", s, flags):
        return None  # a negation no rule can take out: adding one would double it
    for rules, what in ((remove, "negation removed"), (add, "negation added")):
        for pat, repl in rules:
            out = re.sub(pat, repl, s, count=1, flags=flags)
            if out != s:
                return out[0].upper() + out[1:], what
    return None


# ---- pools (per split) -------------------------------------------------------------------

# Shell commands people ask about; a pool holds those its split's pages use, as written.
COMMANDS = ("python", "python3", "pip", "git", "apt", "apt-get", "apt-cache", "aptitude",
            "dpkg", "dselect", "chmod", "chown", "ls", "cp", "mv", "rm", "grep", "sed", "awk",
            "gcc", "sqlite3", "ssh", "tar", "gzip", "sudo", "vim", "emacs", "django-admin",
            "perl", "bash", "curl", "wget", "cron", "gdb")  # not "make", "patch": English too
_TOKEN = re.compile(r"(?<![\w.\-/])[A-Za-z_][\w\-]*(?:\.[A-Za-z_]\w*)*(?:\(\))?(?![\w\-])")
_IDENT = re.compile(
    r"(?<![\w.\-/])(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[a-z]+_[a-z0-9_]+(?:\(\))?"
    r"|[A-Za-z_]\w*\(\))(?![\w\-])")
_NOT_IDENT = {"e.g", "i.e", "etc", "vs"}


def identifiers(text: str) -> list[str]:
    """Code-shaped tokens: dotted names (os.path.join), snake_case, calls (len())."""
    return [t for t in _IDENT.findall(text)  # not "U.S", "e.g", "a.k.a"
            if t.lower() not in _NOT_IDENT and max(map(len, re.split(r"[._]", t))) >= 2]


def commands(text: str) -> list[str]:
    """The commands of COMMANDS the text names, as lower-case words of their own."""
    return [t for t in _TOKEN.findall(text) if t in COMMANDS]


_CLASS_NAME = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+")  # TextTestResult: code


def name_pool(texts: Sequence[str], min_count: int = 3) -> list[str]:
    """Proper names of a corpus: capitalised words not opening a sentence, seen at least
    `min_count` times in two texts or more, almost never written lower-case, no stop word,
    and not code (no digit or underscore, not a CamelCase class name)."""
    caps: dict[str, int] = {}
    docs: dict[str, set[int]] = {}
    for i, t in enumerate(texts):
        for w in names(t):
            caps[w] = caps.get(w, 0) + 1
            docs.setdefault(w, set()).add(i)
    lower: dict[str, int] = {}
    for t in texts:
        for w in re.findall(r"\b[a-z][\w'-]+", t):
            lower[w] = lower.get(w, 0) + 1
    return sorted(w for w, n in caps.items()
                  if n >= min_count and len(docs[w]) >= 2 and len(w) >= 3 and w.isalpha()
                  and w.lower() not in STOP_WORDS and not _CLASS_NAME.fullmatch(w)
                  and lower.get(w.lower(), 0) <= 0.2 * n)
