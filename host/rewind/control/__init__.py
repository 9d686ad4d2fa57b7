"""Your data, your rules: backups (`backup`: the file formats; `dump`: a profile written
out; `restore`: a file imported through the capture gate). Forgetting, retention and the
audit log live with the engine (profile/: engine.py, retention.py, audit.py).
This package must never bypass the engine's write lock or the capture gate.
"""
