"""A profile's own settings: what a person changed (set_settings, the options page),
kept in `host_settings.json` in the profile's data directory and applied over the
defaults wherever the profile is opened (the browser's host and the CLI alike).

Only user settings (Settings fields whose knob says `user`) are kept; each saved value
is checked against its knob when read, so a damaged file or a value an older or newer
host does not know is skipped alone (and logged), never fatal.
This module must never hold settings in a global: it reads and writes the file.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from pathlib import Path
from typing import Any

from .. import config
from ..config import Settings

log = logging.getLogger("rewind.settings")

FILE = "host_settings.json"


def load(data_dir: Path) -> dict[str, Any]:
    """The overrides saved for the profile in `data_dir` (valid ones only)."""
    path = data_dir / FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring %s: %s", path, exc)
        return {}
    if not isinstance(raw, dict):
        log.warning("ignoring %s: not a JSON object", path)
        return {}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        try:  # one by one: a setting another host version does not know is skipped alone
            out[key] = config.check_user_value(key, value)
        except ValueError as exc:
            log.warning("ignoring a saved setting in %s: %s: %s", path, key, exc)
    return out


def save(data_dir: Path, overrides: dict[str, Any]) -> None:
    path = data_dir / FILE
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(overrides, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)  # atomic: a crash leaves the old or the new file


def apply(base: Settings, data_dir: Path) -> Settings:
    """`base` with the profile's saved overrides."""
    return dataclasses.replace(base, **load(data_dir))


def update(base: Settings, data_dir: Path, given: dict[str, Any]) -> Settings:
    """Save `given` over the saved overrides (None: back to the default); the result."""
    overrides = load(data_dir)
    for key, value in given.items():
        if value is None:
            overrides.pop(key, None)
        else:
            overrides[key] = config.check_user_value(key, value)
    save(data_dir, overrides)
    return dataclasses.replace(base, **overrides)
