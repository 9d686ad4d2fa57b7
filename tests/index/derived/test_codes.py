import numpy as np
from rewind.index.derived import codes
from rewind.index.derived.codes import NO_MATCH, Quantiser


def unit(rng, n, d):
    v = rng.standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_hamming_counts_differing_signs():
    rng = np.random.default_rng(0)
    x = unit(rng, 300, 100)
    q = Quantiser.fit(x, 100, 100)
    c = q.codes(x)
    assert c.shape == (2, 300) and c.dtype == np.uint64  # 100 bits in two words
    signs = ((x - q.centre) @ q.rotation) > 0
    want = (signs != signs[7]).sum(axis=1)
    np.testing.assert_array_equal(codes.hamming(c, c[:, 7:8]), want)
    assert codes.hamming(c, c[:, 7:8])[7] == 0


def test_matryoshka_bits_use_only_the_first_dimensions():
    rng = np.random.default_rng(1)
    x = unit(rng, 50, 64)
    q = Quantiser.fit(x, 64, 16)
    y = x.copy()
    y[:, 16:] = -y[:, 16:]  # change only dimensions past the code's
    np.testing.assert_array_equal(q.codes(x), q.codes(y))


def test_nearest_takes_exactly_c_rows_lowest_first_at_the_cut():
    dist = np.array([5, 1, 3, 3, 3, 0, NO_MATCH, 2], np.uint16)
    assert codes.nearest(dist, 4).tolist() == [1, 2, 5, 7]  # 0, 1, 2 and the first 3
    assert codes.nearest(dist, 5).tolist() == [1, 2, 3, 5, 7]
    assert codes.nearest(dist, 100).tolist() == [0, 1, 2, 3, 4, 5, 7]  # never NO_MATCH
    assert codes.nearest(np.full(3, NO_MATCH, np.uint16), 2).tolist() == []


def test_int8_scores_are_cosines_within_rounding():
    rng = np.random.default_rng(2)
    x = unit(rng, 2000, 64)
    q = Quantiser.fit(x[:500], 64, 64)
    rows = q.int8(x)
    assert rows.dtype == np.int8
    query = unit(rng, 1, 64)[0]
    approx = q.int8_scores(rows, query)
    exact = x @ query
    # within int8 rounding (a few rows beyond the fitted sample's range are clipped, a
    # little further off), with no offset between them: the scores rank exact ones alike
    assert abs(float(np.mean(exact - approx))) < 1e-3
    assert np.percentile(np.abs(exact - approx), 99) < 0.005
    assert len(set(np.argsort(-approx)[:10]) & set(np.argsort(-exact)[:10])) >= 9
    # the vectors the rows stand for give the same scores
    np.testing.assert_allclose(q.vectors(rows) @ query, approx, atol=1e-5)


def test_bit_scores_sum_the_rotated_query_over_set_bits():
    rng = np.random.default_rng(3)
    x = unit(rng, 500, 100)
    q = Quantiser.fit(x, 100, 100)  # 100 bits: the second word is part padding
    c = q.codes(x)
    query = unit(rng, 1, 100)[0]
    rotated = query @ q.rotation
    bits = ((x - q.centre) @ q.rotation) > 0
    exact = (bits * rotated).sum(axis=1)
    approx = q.bit_scores(c, query)
    # each set bit's component is off by at most half a level of the 4-bit query
    unit_step = (rotated.max() - rotated.min()) / (2 ** codes.QUERY_BITS - 1)
    assert np.all(np.abs(approx - exact) <= bits.sum(axis=1) * unit_step / 2 + 1e-4)
    np.testing.assert_allclose(q.bit_scores(c[:, 40:60], query), approx[40:60])


def test_bit_scores_find_true_neighbours_hamming_distance_misses():
    rng = np.random.default_rng(4)
    x = unit(rng, 3000, 64)
    q = Quantiser.fit(x, 64, 64)
    c = q.codes(x)
    by_bits, by_hamming = [], []
    for query in unit(rng, 40, 64):
        true = set(np.argsort(-(x @ query))[:10])
        by_bits.append(len(true & set(np.argsort(-q.bit_scores(c, query))[:150])))
        dist = codes.hamming(c, q.codes(query[None]))
        by_hamming.append(len(true & set(np.argsort(dist, kind="stable")[:150])))
    assert np.mean(by_bits) > np.mean(by_hamming) + 0.5, (np.mean(by_bits), np.mean(by_hamming))


def test_quantiser_without_a_sample_still_encodes_unit_vectors():
    q = Quantiser.fit(np.empty((0, 8), np.float32), 8, 8)
    v = np.eye(8, dtype=np.float32)
    assert q.codes(v).shape == (1, 8) and q.int8(v).max() > q.int8(-v).max()
