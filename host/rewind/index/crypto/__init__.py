"""Encryption at rest, the primitives: the field cipher (AES-GCM seals, HMAC-keyed terms;
cipher.py) and where a key lives (the keyring or a 0600 key file; keys.py).

Used by the store, the derived indexes and held pages (holding.py), none of which it knows:
this package must never open a store, decide what is sealed, or log a key or plaintext.
"""
