"""Private records and articles about the same topics, generated from templates the content
check never wrote: the evaluation of the content check on records (bench/quality/records.py).

Job: read the template kits of tests/data/record_pages/<part>/<lang>.txt — one language's
frames, written by hand for that part: "tune" and "dev" are fitted on ("dev" was written as
a held-out part, before any result was looked at, by other habits; its results were then
read, so it became development data — see its files' opening comments); "fresh" and
"audit" never are: the held-out parts, each written by an author who had not seen the check,
its training data or its results, with other countries' records and other habits — and turn
them, seeded, into pages in three layouts:

- `plain`: a heading and paragraphs, no menu, no sign-out (where private records most
  often slipped through);
- `app`: a signed-in screen (menu, account, sign-out), one block a line;
- `table`: label and value cells, each on its own line (as the extension's chunker sends
  table cells), under a heading.

A private page is a record of one person (a named person, their dates, amounts, numbers,
doses, messages); an article explains the same topic for any reader (in `app` layout it is
a help page read while signed in). Length, order, greeting and closing vary per page.
Hostnames are made of the kit's own words and towns; bench/quality/records.py checks that
no rule list holds them.

Kit format (one frame a line; `#` starts a comment):

    lang: de            tld: de            date: d.m.y      longdate: {d}. {M} {y}
    money: {n} € | . | ,     (pattern, thousands separator, decimal separator or -)
    names: Maria Schmidt; Jonas Becker        towns: Kassel; Hameln
    months: Januar; Februar; ...              (twelve)
    chrome: Übersicht | Nachrichten | Mein Konto | Abmelden   (the app's menu, sign-out last)
    site: Start | Ratgeber | Anmelden                          (an article site's menu)
    greet: Guten Tag {name},                  close: Mit freundlichen Grüßen
    == health | praxis-{town} | befunde-{town}    (a category and its host patterns)
    T: Ihr Befund vom {date}                  (a private page's title; A: an article's)
    p: Sie waren am {date} um {time} bei uns. (a private frame; a: an article frame)

Slots: {name} {first} {surname} {other} {dob} {date} {date2} {ldate} {time} {time2} {amt}
{amt2} {amt3} {round} {round2} {num} {pct} {n2} {town}.
Never: read anything but the kits, or use a source of randomness other than the seed.
"""

from __future__ import annotations

import random
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from bench.common.labelled_pages import Page

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "tests" / "data" / "record_pages"
PARTS = ("tune", "dev", "fresh", "audit")
FIT_PARTS = ("tune", "dev")  # what the shipped model is fitted on
HELD_OUT = ("fresh", "audit")  # only ever tested on, never fitted on
LAYOUTS = ("plain", "app", "table")
_SLOT = re.compile(r"\{(\w+)\}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


class KitError(ValueError):
    """A kit file is malformed; the message names the file and the line."""


@dataclass
class Topic:
    hosts: list[str]
    titles: dict[str, list[str]] = field(default_factory=lambda: {"p": [], "a": []})
    frames: dict[str, list[str]] = field(default_factory=lambda: {"p": [], "a": []})


@dataclass
class Kit:
    part: str
    lang: str
    meta: dict[str, str]
    topics: dict[str, Topic]

    def items(self, key: str, sep: str = ";") -> list[str]:
        return [s.strip() for s in self.meta.get(key, "").split(sep) if s.strip()]


def read_kit(path: Path, part: str) -> Kit:
    meta: dict[str, str] = {}
    topics: dict[str, Topic] = {}
    current: Topic | None = None
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("== "):
            name, *hosts = [s.strip() for s in line[3:].split("|")]
            current = topics.setdefault(name, Topic(hosts))
            continue
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise KitError(f"{path.name}:{n}: expected 'key: value'")
        if current is None:
            meta[key] = f"{meta[key]} ; {value}" if key in ("greet", "close") and key in meta \
                else value
        elif key in ("T", "A"):
            current.titles["p" if key == "T" else "a"].append(value)
        elif key in ("p", "a"):
            current.frames[key].append(value)
        else:
            raise KitError(f"{path.name}:{n}: unknown key {key!r} in a topic")
    for key in ("lang", "tld", "date", "longdate", "money", "names", "towns", "months",
                "chrome", "site"):
        if key not in meta:
            raise KitError(f"{path.name}: no {key!r}")
    for name, t in topics.items():
        if not (t.hosts and all(t.titles.values()) and len(t.frames["p"]) >= 3
                and len(t.frames["a"]) >= 3):
            raise KitError(f"{path.name}: topic {name!r} needs hosts, T:, A:, 3 p: and 3 a:")
    return Kit(part, meta["lang"], meta, topics)


def kits(part: str, folder: Path = KITS) -> list[Kit]:
    if part not in PARTS:
        raise ValueError(part)
    return [read_kit(f, part) for f in sorted((folder / part).glob("*.txt"))]


class Slots:
    """One page's made-up particulars, formatted as the kit's language writes them."""

    def __init__(self, kit: Kit, rng: random.Random) -> None:
        self.kit, self.rng = kit, rng
        names = kit.items("names")
        a, b = rng.sample(names, 2)
        self.values = {"name": a, "first": a.split()[0], "surname": a.split()[-1], "other": b}
        y = rng.choice((2024, 2025, 2026))
        self.values.update(
            dob=self.date(rng.randint(1940, 2004)), date=self.date(y), date2=self.date(y),
            ldate=self.longdate(y), time=self.time(), time2=self.time(),
            amt=self.money(rng.uniform(10, 900)), amt2=self.money(rng.uniform(100, 4000)),
            amt3=self.money(rng.uniform(1000, 60000)),
            round=self.money(rng.choice((500, 1000, 2000, 3000, 50000)), cents=False),
            round2=self.money(rng.choice((100, 200, 250, 400)), cents=False),
            num=f"{rng.randint(10, 99)}{rng.randint(100000, 9999999)}",
            pct=f"{rng.randint(2, 40)}", n2=str(rng.randint(2, 60)),
            town=rng.choice(kit.items("towns")))

    def date(self, year: int) -> str:
        d, m = self.rng.randint(1, 28), self.rng.randint(1, 12)
        style = self.kit.meta["date"]
        if style == "cjk":
            return f"{year}年{m}月{d}日"
        parts = {"d": f"{d:02d}", "m": f"{m:02d}", "y": str(year)}
        sep = next(c for c in style if c not in "dmy")
        return sep.join(parts[c] for c in style.split(sep))

    def longdate(self, year: int) -> str:
        months = self.kit.items("months")
        m = self.rng.randrange(12)
        return self.kit.meta["longdate"].format(d=self.rng.randint(1, 28), M=months[m], y=year,
                                                m=m + 1)

    def time(self) -> str:
        return f"{self.rng.randint(7, 21)}:{self.rng.choice(range(0, 60, 5)):02d}"

    def money(self, x: float, cents: bool = True) -> str:
        pattern, thousands, decimal = [s.strip() for s in self.kit.meta["money"].split("|")]
        thousands = {"space": "\u00a0", "none": ""}.get(thousands, thousands)
        whole = int(x)
        digits = f"{whole:,}".replace(",", thousands)
        if cents and decimal != "-":
            digits += f"{decimal}{int(round((x - whole) * 100)) % 100:02d}"
        return pattern.replace("{n}", digits)

    def fresh(self, slot: str) -> str | None:
        """A new value each time the slot is used (an amount, a time), else None."""
        rng = self.rng
        return {"amt": lambda: self.money(rng.uniform(10, 900)),
                "amt2": lambda: self.money(rng.uniform(100, 4000)),
                "amt3": lambda: self.money(rng.uniform(1000, 60000)),
                "time2": self.time, "n2": lambda: str(rng.randint(2, 60))}.get(
                    slot, lambda: None)()

    def fill(self, frame: str) -> str:
        def one(m: re.Match) -> str:
            new = self.fresh(m.group(1))
            return new if new is not None else self.values.get(m.group(1), m.group(0))
        return _SLOT.sub(one, frame)


def _join(sentences: list[str]) -> str:
    return "".join(sentences) if sentences and _CJK.search(sentences[0]) else " ".join(sentences)


def _cells(line: str) -> list[str]:
    """A frame as table cells: split at its first label colon or comma."""
    for sep in (": ", "：", " – ", ", ", "、", "，"):
        head, found, tail = line.partition(sep)
        if found and head and tail and len(head) < 40:
            return [head.strip(), tail.strip()]
    return [line]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def page(kit: Kit, topic: str, role: str, layout: str) -> Page:
    """One page, the same every run (seeded by its part, language, topic, role and layout)."""
    key = f"{kit.part}|{kit.lang}|{topic}|{role}|{layout}"
    rng = random.Random(zlib.crc32(key.encode()))
    slots = Slots(kit, rng)
    t = kit.topics[topic]
    r = "p" if role == "private" else "a"
    frames = list(t.frames[r])
    first = frames.pop(0) if rng.random() < 0.5 else None
    rng.shuffle(frames)
    frames = ([first] if first else []) + frames[:rng.randint(2, len(frames))]
    lines = [slots.fill(f) for f in frames]
    if r == "p":
        if kit.meta.get("greet") and rng.random() < 0.5:
            lines.insert(0, slots.fill(rng.choice(kit.items("greet"))))
        if kit.meta.get("close") and rng.random() < 0.4:
            lines.append(slots.fill(rng.choice(kit.items("close"))))
    title = slots.fill(rng.choice(t.titles[r]))
    heading = title.split(" – ")[0]
    if layout == "plain":
        paras, i = [], 0
        while i < len(lines):
            k = rng.randint(1, 3)
            paras.append(_join(lines[i:i + k]))
            i += k
        body = [heading, *paras]
    elif layout == "app":
        body = [heading, *lines]
    else:
        body = [heading] + [c for ln in lines for c in _cells(ln)]
    host = slots.fill(rng.choice(t.hosts)).lower()
    host = re.sub(r"[^a-z0-9.-]+", "-", host.replace("ä", "ae").replace("ö", "oe")
                  .replace("ü", "ue").replace("ß", "ss").replace("é", "e").replace("è", "e"))
    host = f"{re.sub(r'-+', '-', host).strip('-.')}.{kit.meta['tld']}"
    path = f"/v/{rng.randint(1000, 99999)}" if r == "p" else \
        f"/a/{_slug(heading)[:40] if heading.isascii() else rng.randint(100, 999)}"
    menu = kit.items("chrome", "|") if (layout == "app" or (layout == "table" and r == "p"
                                                           and rng.random() < 0.5)) \
        else kit.items("site", "|") if r == "a" else []
    signals = {"lang": kit.lang, "app": [], "manifest": False, "controls": menu, "editors": 0}
    return Page(f"{kit.part}-{kit.lang}-{topic}-{role}-{layout}",
                "sensitive" if r == "p" else "article", topic, kit.lang, host,
                f"https://{host}{path}", title, ("\n".join(body),), signals)


def layout_of(p: Page) -> str:
    return p.id.rsplit("-", 1)[1]


def generate(part: str, folder: Path = KITS) -> list[Page]:
    """Every page of a part: each kit's topics, private and article, in the three layouts."""
    return [page(kit, topic, role, layout) for kit in kits(part, folder)
            for topic in kit.topics for role in ("private", "article") for layout in LAYOUTS]
