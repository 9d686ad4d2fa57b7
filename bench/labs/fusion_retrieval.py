"""Fusion lab, the retrieval side: the passages, their vectors and the two candidate lists.

Job: cut the Python FAQ answers into <=200-word passages (or keep whole answers), embed them
and the queries with the real MiniLM int8 ONNX model (onnxruntime + tokenizers, mean
pooling, L2 norm; vectors cached on disk), index them with tantivy BM25 (en_stem, or
en_stem + the engine's stop words), and hand each query's candidates to fusion as the engine
does: each retriever's top 100 passages and the cosine of every candidate (BM25-only ones
included, as search/retrieve.py computes it).
Never: let a query's words become query syntax.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rewind.config import model_dir
from rewind.text import STOP_WORDS

from bench.common import data

MODEL_NAME = "all-minilm-l6-v2-int8"  # the offline default, as `build.py install` puts it
MODEL = model_dir() / MODEL_NAME / "model.onnx"
TOKENIZER = model_dir() / MODEL_NAME / "tokenizer.json"
MAX_TOKENS = 256
PASSAGE_WORDS = 200  # Settings.max_passage_words
CANDIDATES = 100  # Settings.candidates_per_retriever


# ============================================================================= embedding


class MiniLM:
    """The offline default embedding model, loaded the way the product loads it."""

    def __init__(self, model: Path = MODEL, tokenizer: Path = TOKENIZER, threads: int = 2):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        for p in (model, tokenizer):
            if not p.exists():
                raise SystemExit(
                    f"{p} is missing: install the offline models (`python3 build.py "
                    "install`)"
                )
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tok = Tokenizer.from_file(str(tokenizer))
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")
        h = hashlib.sha256()
        for p in (model, tokenizer):
            h.update(p.read_bytes())
        self.fingerprint = f"{h.hexdigest()[:16]}-{MAX_TOKENS}"

    def embed(self, texts: Sequence[str], batch: int = 16) -> np.ndarray:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        # Similar lengths in a batch: little padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for s in range(0, len(order), batch):
            idx = order[s : s + batch]
            enc = self.tok.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[idx] = pooled
        return out


def embed_cached(model: MiniLM, texts: Sequence[str], cache: Path) -> np.ndarray:
    """Embeddings of `texts`, from <cache>/embeddings when the model and texts are unchanged."""
    h = hashlib.sha256(model.fingerprint.encode())
    for t in texts:
        h.update(t.encode() + b"\x00")
    path = cache / "embeddings" / f"minilm-{h.hexdigest()[:20]}.npy"
    if path.exists():
        return np.load(path)
    t0 = time.perf_counter()
    vecs = model.embed(texts)
    dt = time.perf_counter() - t0
    print(f"  embedded {len(texts)} texts in {dt:.1f}s ({len(texts) / dt:.1f}/s)", file=sys.stderr)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.npy")
    np.save(tmp, vecs)
    tmp.replace(path)
    return vecs


# ============================================================================= corpus + retrievers


def chunk(text: str, max_words: int = PASSAGE_WORDS) -> list[str]:
    """Merge paragraphs into passages of at most max_words (a longer paragraph is split)."""
    out: list[str] = []
    cur: list[str] = []
    for para in text.split("\n\n"):
        words = para.split()
        if cur and len(cur) + len(words) > max_words:
            out.append(" ".join(cur))
            cur = []
        while len(words) > max_words:
            out.append(" ".join(words[:max_words]))
            words = words[max_words:]
        cur.extend(words)
    if cur:
        out.append(" ".join(cur))
    return out


@dataclass
class Corpus:
    unit_doc: list[str]  # answer id (FaqPair.doc_id) of each passage
    unit_text: list[str]


def build_corpus(pairs: Sequence[data.FaqPair], whole_answers: bool = False) -> Corpus:
    docs: list[str] = []
    texts: list[str] = []
    for p in pairs:
        for t in [p.answer_text] if whole_answers else chunk(p.answer_text):
            docs.append(p.doc_id)
            texts.append(t)
    return Corpus(docs, texts)


def stop_words() -> list[str]:
    """The engine's stop-word list (rewind.text), so the lab measures what the engine indexes."""
    return sorted(STOP_WORDS)


class Bm25:
    """tantivy BM25 over passages; `stop` adds a stop-word filter before stemming."""

    def __init__(self, texts: Sequence[str], stop: bool = False):
        import tantivy

        name = "en_stop" if stop else "en_stem"
        sb = tantivy.SchemaBuilder()
        sb.add_text_field("text", stored=False, tokenizer_name=name)
        sb.add_unsigned_field("uid", stored=True, indexed=False)
        self.index = tantivy.Index(sb.build())  # in RAM
        if stop:
            f = tantivy.Filter
            analyzer = (
                tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
                .filter(f.remove_long(40))
                .filter(f.lowercase())
                .filter(f.ascii_fold())
                .filter(f.custom_stopword(stop_words()))
                .filter(f.stemmer("english"))
                .build()
            )
            self.index.register_tokenizer(name, analyzer)
        w = self.index.writer(heap_size=50_000_000, num_threads=1)
        for i, t in enumerate(texts):
            d = tantivy.Document()
            d.add_text("text", t)
            d.add_unsigned("uid", i)
            w.add_document(d)
        w.commit()
        w.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()

    def search(self, query: str, k: int = CANDIDATES) -> dict[int, float]:
        words = data.terms(query)  # plain words: user text is never query syntax
        if not words:
            return {}
        q = self.index.parse_query(" ".join(words), ["text"])
        res = self.searcher.search(q, k)
        return {int(self.searcher.doc(a)["uid"][0]): float(s) for s, a in res.hits}


@dataclass
class Run:
    """One query's candidates, as the engine hands them to fusion."""

    gold: str
    dense: dict[int, float]  # dense top-k: passage -> cosine
    bm25: dict[int, float]  # BM25 top-k: passage -> score
    cosine: dict[int, float]  # cosine of every candidate of either list
    page_of: Sequence[str] = field(repr=False, default=())


@dataclass
class Setup:
    """One configuration's corpus, passage vectors and BM25 index."""

    cache: Path
    pairs: list[data.FaqPair]
    corpus: Corpus
    model: MiniLM
    uvec: np.ndarray
    bm: Bm25

    @classmethod
    def build(cls, cache: Path, whole_answers: bool, stop: bool) -> Setup:
        pairs = data.faq_pairs(data.python_docs(cache))
        corpus = build_corpus(pairs, whole_answers)
        model = MiniLM()
        return cls(cache, pairs, corpus, model, embed_cached(model, corpus.unit_text, cache),
                   Bm25(corpus.unit_text, stop=stop))  # fmt: skip

    def runs(self, queries: Sequence[data.Query]) -> list[Run]:
        qvec = embed_cached(self.model, [q.text for q in queries], self.cache)
        sims = qvec @ self.uvec.T
        out = []
        for j, q in enumerate(queries):
            top = np.argsort(-sims[j], kind="stable")[:CANDIDATES]
            dense = {int(i): float(sims[j, i]) for i in top}
            bm25 = self.bm.search(q.text)
            cosine = {i: float(sims[j, i]) for i in dense.keys() | bm25.keys()}
            out.append(Run(q.gold, dense, bm25, cosine, self.corpus.unit_doc))
        return out

    def query_sets(self, n_terms: int, seed: int) -> dict[str, list[Run]]:
        return {
            "FAQ questions": self.runs(data.question_queries(self.pairs)),
            "known-item": self.runs(
                data.known_item_queries(self.pairs, n_terms=n_terms, seed=seed)),
        }  # fmt: skip
