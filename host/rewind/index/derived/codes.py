"""Compressed forms of unit vectors for dense search: 1-bit codes and int8 rows.

Search runs in stages (index/derived/dense_search.py); this module holds all but the exact one:
- a 1-bit code per passage, scanned by Hamming distance: the signs of the vector's first
  `bits` dimensions (fewer than all: Matryoshka truncation) after subtracting a centre (a
  model's vectors share a common direction) and applying a random rotation (so that every
  bit carries as much of the vector as any other, however uneven the model's dimensions);
  codes are word-major — word w of every row in one contiguous uint64 array — so a scan
  streams each word column once: 48 bytes a passage at 384 bits;
- the same codes scored against the query's own components (`bit_scores`), for the
  scan's candidates only: a finer order than Hamming distance at no extra memory;
- an int8 row per passage (per-dimension affine scale): read only for the best of those,
  scoring them within ~0.002 of their exact cosines; the best few are then read exactly.
This module must never read the store: exact scores come from its vectors, later.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WORD_BITS = 64
NO_MATCH = np.iinfo(np.uint16).max  # the distance of rows a filter excludes
QUERY_BITS = 4  # bits of a query component in bit_scores


def words(bits: int) -> int:
    return -(-bits // WORD_BITS)


@dataclass
class Quantiser:
    """What turns vectors into codes and int8 rows; fitted once on a sample, then fixed."""

    bits: int
    centre: np.ndarray  # (dim,) float32
    rotation: np.ndarray  # (bits, bits) float32, orthogonal
    low: np.ndarray  # (dim,) float32: int8 -128 stands for this value
    step: np.ndarray  # (dim,) float32: one int8 unit
    sample_rows: int  # how many vectors it was fitted on

    @classmethod
    def fit(cls, sample: np.ndarray, dim: int, bits: int, seed: int = 0) -> Quantiser:
        rng = np.random.default_rng(seed)
        rotation, _ = np.linalg.qr(rng.standard_normal((bits, bits)))
        if len(sample):
            centre = sample.mean(axis=0)
            low, high = sample.min(axis=0), sample.max(axis=0)
            pad = 0.1 * (high - low) + 1e-3  # room for later vectors beyond the sample's
            low, high = low - pad, high + pad
        else:  # nothing to fit on yet: any unit vector's components lie in [-1, 1]
            centre, low, high = np.zeros(dim), np.full(dim, -1.0), np.full(dim, 1.0)
        return cls(bits, centre.astype(np.float32), rotation.astype(np.float32),
                   low.astype(np.float32), ((high - low) / 255).astype(np.float32), len(sample))

    def codes(self, vectors: np.ndarray) -> np.ndarray:
        """(n, dim) vectors -> (words, n) uint64 codes."""
        n, w = len(vectors), words(self.bits)
        if n == 0:
            return np.empty((w, 0), np.uint64)
        signs = (vectors[:, : self.bits] - self.centre[: self.bits]) @ self.rotation > 0
        packed = np.zeros((n, w * 8), np.uint8)
        packed[:, : -(-self.bits // 8)] = np.packbits(signs, axis=1, bitorder="little")
        return np.ascontiguousarray(packed.view("<u8").T).astype(np.uint64, copy=False)

    def int8(self, vectors: np.ndarray) -> np.ndarray:
        """(n, dim) vectors -> (n, dim) int8 rows (clipped to the fitted range)."""
        q = np.rint((vectors - self.low) / self.step)
        return (np.clip(q, 0, 255) - 128).astype(np.int8)

    def bit_scores(self, code_rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Approximate cosines of (words, m) codes with the float `query`, up to an affine
        map: for ranking. The query is not reduced to signs (RaBitQ's asymmetric estimate):
        each rotated component weighs its bit, so a candidate agreeing on the query's large
        components outranks one agreeing on its small ones, which Hamming distance cannot
        tell apart. The components are cut to 4 bits and summed one bit plane at a time by
        popcount: 4x a Hamming scan's work, done on its candidates only."""
        rotated = (query[: self.bits] @ self.rotation).astype(np.float32)
        low = float(rotated.min())
        unit = float(rotated.max() - low) / (2 ** QUERY_BITS - 1) or 1.0
        levels = np.zeros(code_rows.shape[0] * WORD_BITS, np.uint8)
        levels[: self.bits] = np.rint((rotated - low) / unit)
        m = code_rows.shape[1]
        plane_sum = np.zeros(m, np.uint16)
        set_bits = np.zeros(m, np.uint16)
        scratch = np.empty(m, np.uint64)
        counts = np.empty(m, np.uint8)
        for p in reversed(range(QUERY_BITS)):  # Horner: sum of 2^p * popcount(code & plane p)
            plane = np.packbits(((levels >> p) & 1).reshape(-1, WORD_BITS), axis=1,
                                bitorder="little").view("<u8")[:, 0]
            np.multiply(plane_sum, 2, out=plane_sum)
            for w, word in enumerate(plane):
                np.bitwise_and(code_rows[w], word, out=scratch)
                np.bitwise_count(scratch, out=counts)
                np.add(plane_sum, counts, out=plane_sum)
        for w in range(code_rows.shape[0]):  # padding bits are 0 in codes and planes alike
            np.bitwise_count(code_rows[w], out=counts)
            np.add(set_bits, counts, out=set_bits)
        return low * set_bits + unit * plane_sum.astype(np.float32)

    def int8_scores(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Approximate cosines of int8 `rows` with `query` (within ~0.002 at 384
        dimensions: each component is off by at most half a step).

        In blocks of 1,024 rows: small products stay on one thread (OpenBLAS's two threads
        made one 10k-row product take 20 ms instead of 0.6 on a busy 2-core machine)."""
        weights = (query * self.step).astype(np.float32)
        offset = float(query @ (self.low + 128 * self.step))  # row value -128 stands for low
        out = np.empty(len(rows), np.float32)
        for start in range(0, len(rows), 1024):
            out[start:start + 1024] = rows[start:start + 1024].astype(np.float32) @ weights
        return out + offset

    def vectors(self, rows: np.ndarray) -> np.ndarray:
        """(m, dim) int8 rows -> the float32 vectors they stand for."""
        return self.low + self.step * (rows.astype(np.float32) + 128)


def hamming(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Distances (uint16) of one (words, 1) query code to every row of (words, n) codes."""
    n = codes.shape[1]
    dist = np.zeros(n, np.uint16)
    if n == 0:
        return dist
    scratch = np.empty(n, np.uint64)
    counts = np.empty(n, np.uint8)
    for w in range(codes.shape[0]):
        np.bitwise_xor(codes[w], query[w, 0], out=scratch)
        np.bitwise_count(scratch, out=counts)
        np.add(dist, counts, out=dist)
    return dist


def nearest(dist: np.ndarray, c: int) -> np.ndarray:
    """Rows of the `c` smallest distances (ties at the cut: lowest rows first), ascending.

    Distances are small integers, so a histogram finds the cut in one pass: cheaper than a
    partial sort of every row. Rows at NO_MATCH are never returned.
    """
    excluded = dist == NO_MATCH
    c = min(c, len(dist) - int(np.count_nonzero(excluded)))
    if c <= 0:
        return np.empty(0, np.int64)
    counts = np.bincount(dist[~excluded] if excluded.any() else dist)
    cumulative = np.cumsum(counts)
    cut = int(np.searchsorted(cumulative, c))  # the distance at which c rows are reached
    below = dist < cut
    at = np.flatnonzero(dist == cut)[: c - int(np.count_nonzero(below))]
    below[at] = True
    return np.flatnonzero(below)
