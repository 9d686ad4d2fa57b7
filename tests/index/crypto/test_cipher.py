"""Sealing fields and keying terms (index/crypto/cipher.py)."""

import numpy as np
import pytest
from rewind.errors import Code, RewindError
from rewind.index.crypto.cipher import FieldCipher, new_key


def test_seal_open_round_trip_and_fresh_nonces():
    c = FieldCipher(new_key(), "k1")
    a, b = c.seal_text("a distinctive passage", "text"), c.seal_text("a distinctive passage",
                                                                    "text")
    assert a != b  # a random nonce each time: equal texts do not look equal
    assert b"distinctive" not in a
    assert c.open_text(a, "text") == "a distinctive passage"
    vec = np.arange(4, dtype=np.float32)
    assert np.frombuffer(c.open_vector(c.seal_vector(vec)), np.float32).tolist() == vec.tolist()


def test_wrong_column_wrong_key_and_damage_are_refused():
    c = FieldCipher(new_key(), "k1")
    sealed = c.seal_text("secret", "title")
    for bad in (lambda: c.open_text(sealed, "text"),  # moved to another column
                lambda: FieldCipher(new_key(), "k1").open_text(sealed, "title"),
                lambda: c.open_text(sealed[:-1] + bytes([sealed[-1] ^ 1]), "title"),
                lambda: c.open_text(b"plain", "title")):
        with pytest.raises(RewindError) as err:
            bad()
        assert err.value.code == Code.STORE_CORRUPT


def test_terms_are_keyed_and_stable():
    key = new_key()
    c1, c2 = FieldCipher(key, "k1"), FieldCipher(key, "k1")
    assert c1.term("prune") == c2.term("prune") != c1.term("pruning")
    assert FieldCipher(new_key(), "k1").term("prune") != c1.term("prune")
    assert c1.terms(["a", "b"]).split() == [c1.term("a"), c1.term("b")]
    assert "prune" not in c1.term("prune")


def test_check_tells_keys_apart():
    key = new_key()
    assert FieldCipher(key, "k").check == FieldCipher(key, "k").check
    assert FieldCipher(new_key(), "k").check != FieldCipher(key, "k").check
