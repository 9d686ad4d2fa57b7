"""Splitting a passage at its model's token limit, with a tiny tokenizer (the fake
embedder's: one token a word, a window of a few words)."""

from __future__ import annotations

import numpy as np
from rewind.models.embedder import FakeEmbedder
from rewind.models.pieces import embed_passages, split

WORDS = " ".join(f"w{i}" for i in range(23))


def test_a_passage_that_fits_is_one_piece():
    emb = FakeEmbedder(16, max_tokens=8)
    assert split("one two three", emb) == (["one two three"], False)


def test_a_long_passage_is_split_into_pieces_that_fit_and_cover_every_word():
    emb = FakeEmbedder(16, max_tokens=8)
    pieces, cut = split(WORDS, emb)
    assert not cut
    assert [emb.count_tokens(p) for p in pieces] == [8, 8, 7]
    assert " ".join(pieces) == WORDS  # nothing lost, nothing repeated, in order
    assert all(p == p.strip() for p in pieces)


def test_pieces_end_at_whitespace_not_inside_a_word():
    emb = FakeEmbedder(16, max_tokens=4)
    text = "alpha beta-gamma delta epsilon zeta eta"  # '-' splits words for the fake
    pieces, _ = split(text, emb)
    assert all(not p.endswith("-") and not p.startswith("-") for p in pieces)
    assert " ".join(pieces).split() == text.split()


def test_past_the_piece_limit_the_tail_is_counted_as_truncated():
    emb = FakeEmbedder(16, max_tokens=5)
    pieces, cut = split(WORDS, emb, max_pieces=2)
    assert cut and len(pieces) == 2 and " ".join(pieces) == " ".join(WORDS.split()[:10])
    vecs = embed_passages(emb, [WORDS, "short text here"], max_pieces=2)
    assert vecs.truncated == 1


def test_embedding_gives_a_row_per_piece_owned_by_its_passage():
    emb = FakeEmbedder(16, max_tokens=8)
    vecs = embed_passages(emb, ["a short one", WORDS, "another short one"])
    assert vecs.owner.tolist() == [0, 1, 1, 1, 2]
    assert vecs.piece.tolist() == [0, 0, 1, 2, 0]
    assert vecs.truncated == 0 and vecs.matrix.shape == (5, 16)
    pieces, _ = split(WORDS, emb)
    assert np.allclose(vecs.matrix[1:4], emb.embed_documents(pieces))


def test_the_real_tokenizer_splits_within_its_window(embedder):
    long = " ".join(["https://example.com/a/very/long/path?with=query&and=more"] * 30)
    assert embedder.count_tokens(long) > embedder.max_tokens
    pieces, cut = split(long, embedder)
    assert not cut and len(pieces) >= 2
    assert all(embedder.count_tokens(p) <= embedder.max_tokens for p in pieces)
    assert "".join(pieces).replace(" ", "") == long.replace(" ", "")


def test_pieces_are_of_even_length_not_full_windows_and_a_stub():
    emb = FakeEmbedder(16, max_tokens=8)
    text = " ".join(f"w{i}" for i in range(17))
    pieces, cut = split(text, emb)
    assert not cut and [emb.count_tokens(p) for p in pieces] == [6, 6, 5]  # not 8, 8, 1
