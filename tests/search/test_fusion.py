"""Fusion of the dense and BM25 rankings (search/fusion.py), on plain score tables."""

import pytest
from rewind.config import Settings
from rewind.search.fusion import fuse_adaptive, fuse_rrf

S = Settings()


def test_rrf_weights_ranks():
    fused = fuse_rrf({1: 0.9, 2: 0.8}, {2: 10.0, 3: 5.0}, S)
    assert fused[2] > fused[1] > fused[3]  # in both lists beats top of one
    assert fused[1] == pytest.approx(S.rrf_alpha / (S.rrf_k + 1))


def test_adaptive_fusion_lets_a_decisive_keyword_match_win():
    dense = {1: 0.60, 2: 0.55, 3: 0.50}
    pages = {1: 1, 2: 2, 3: 3}
    decisive = fuse_adaptive(dense, {3: 20.0, 1: 2.0}, S, pages)  # rare words single out 3
    assert max(decisive, key=decisive.get) == 3
    flat = fuse_adaptive(dense, {3: 10.0, 2: 9.8, 1: 9.7}, S, pages)  # common words: no verdict
    assert max(flat, key=flat.get) == 1
    assert fuse_adaptive(dense, {}, S) == pytest.approx({1: 1.0, 2: 0.5, 3: 0.0}, abs=1e-6)


def test_remembered_words_lean_on_keywords():
    dense = {1: 0.60, 2: 0.55}
    pages = {1: 1, 2: 2}
    close = {2: 10.0, 1: 9.9}  # BM25 barely prefers 2
    plain = fuse_adaptive(dense, close, S, pages)
    assert max(plain, key=plain.get) == 1
    remembered = fuse_adaptive(dense, close, S, pages, True)
    assert max(remembered, key=remembered.get) == 2
