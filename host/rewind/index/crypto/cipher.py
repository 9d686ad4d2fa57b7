"""Encryption at rest: what the store seals with AES-GCM, and the text index's keyed terms.

One random 256-bit key per store (keys.py keeps it). From it HKDF derives two keys: one
seals fields (page titles, page metadata, passage text, vectors: each value its own
random 96-bit nonce, the column's name as associated data, so a value moved to another
column does not open), the other turns each term the text index would hold into an
HMAC, so the index's files hold no word of a page while BM25 still counts the same terms.
A `check` value lets a store tell the right key from a wrong one without opening a row.
This module must never store a key, log plaintext, or decide what is encrypted (store/store.py
and derived/text_index.py do).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from functools import lru_cache

import numpy as np
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ...errors import Code, RewindError

VERSION = b"\x01"  # the sealed value's format: version, nonce (12), ciphertext + tag (16)
NONCE_BYTES = 12
SEAL_OVERHEAD = len(VERSION) + NONCE_BYTES + 16  # a sealed value is this much longer
KEY_BYTES = 32


def new_key() -> bytes:
    return os.urandom(KEY_BYTES)


def _derive(key: bytes, label: bytes) -> bytes:
    return HKDF(hashes.SHA256(), KEY_BYTES, salt=None, info=label).derive(key)


class FieldCipher:
    """Seals and opens one store's fields; hashes its text index's terms."""

    def __init__(self, key: bytes, key_id: str) -> None:
        if len(key) != KEY_BYTES:
            raise ValueError("a store key is 32 bytes")
        self.key_id = key_id
        self._aead = AESGCM(_derive(key, b"rewind fields v1"))
        self._term_key = _derive(key, b"rewind terms v1")
        self._check = hmac.new(_derive(key, b"rewind check v1"), key_id.encode(),
                               hashlib.sha256).hexdigest()[:32]
        # A vocabulary's frequent words, not a corpus's (~150 B a term: 50k ~7.5 MB; at
        # 200k it was 30 MB by the end of a long soak, and an HMAC costs ~1.5 µs anyway).
        self.term = lru_cache(maxsize=50_000)(self._term)

    @property
    def check(self) -> str:
        """Stored with the store: a key whose check differs is not this store's key."""
        return self._check

    # ---- fields -------------------------------------------------------------------------

    def seal(self, data: bytes, column: str) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        return VERSION + nonce + self._aead.encrypt(nonce, data, column.encode())

    def open(self, blob: bytes, column: str) -> bytes:
        if not isinstance(blob, bytes) or blob[:1] != VERSION or len(blob) < SEAL_OVERHEAD:
            raise RewindError(
                Code.STORE_CORRUPT, f"A sealed {column} in the store is not in Rewind's format.",
                "Run `rewind doctor`; restore from a backup if it fails.")
        try:
            return self._aead.decrypt(blob[1:1 + NONCE_BYTES], blob[1 + NONCE_BYTES:],
                                      column.encode())
        except InvalidTag:
            raise RewindError(
                Code.STORE_CORRUPT, f"A sealed {column} in the store does not open with its "
                "key: it was damaged or written with another key.",
                "Run `rewind doctor`; restore from a backup if it fails.") from None

    def seal_text(self, text: str, column: str) -> bytes:
        return self.seal(text.encode("utf-8"), column)

    def open_text(self, blob: bytes, column: str) -> str:
        return self.open(blob, column).decode("utf-8")

    def seal_vector(self, vec: np.ndarray) -> bytes:
        return self.seal(np.ascontiguousarray(vec, dtype=np.float32).tobytes(), "vector")

    def open_vector(self, blob: bytes) -> bytes:
        return self.open(blob, "vector")

    # ---- terms --------------------------------------------------------------------------

    def _term(self, term: str) -> str:
        """A term as the text index holds it: 16 bytes of HMAC-SHA256, base32 (26 chars)."""
        digest = hmac.new(self._term_key, term.encode("utf-8"), hashlib.sha256).digest()[:16]
        return base64.b32encode(digest).decode("ascii").rstrip("=").lower()

    def terms(self, terms: list[str]) -> str:
        """Analysed terms -> the keyed tokens, space-separated (one document field)."""
        return " ".join(self.term(t) for t in terms)
