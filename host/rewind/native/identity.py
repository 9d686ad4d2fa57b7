"""Who the host is and whom it answers: its native-messaging name and the extension's origin.

The extension's ID is fixed by the public key in its manifest (extension/EXTENSION_ID);
the launcher that set-up writes passes the allowed origins in $REWIND_ALLOWED_ORIGINS,
so an installed host does not depend on the checkout it came from. A wheel carries its own
copies of extension/EXTENSION_ID and the host manifest's template (`shipped`).
This module must never widen the allowed origins beyond what install or the checkout says.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import Code, RewindError

HOST_NAME = "com.rewind.host"
ORIGINS_ENV = "REWIND_ALLOWED_ORIGINS"
EXTENSION_ID_FILE = Path("extension") / "EXTENSION_ID"
REPO_ROOT = Path(__file__).resolve().parents[3]  # host/rewind/native/identity.py -> checkout
# Where a wheel keeps the checkout files it needs (build.py dist copies them in).
PACKAGED = Path(__file__).resolve().parents[1] / "install" / "shipped"
_ID_RE = re.compile(r"^[a-p]{32}$")


def valid_extension_id(extension_id: str) -> bool:
    return bool(_ID_RE.match(extension_id))


def origin(extension_id: str) -> str:
    return f"chrome-extension://{extension_id}/"


def shipped(relpath: Path) -> Path:
    """A checkout file the host needs: the wheel's copy when installed, else the checkout's."""
    packaged = PACKAGED / relpath.name
    return packaged if packaged.is_file() else REPO_ROOT / relpath


def read_extension_id(root: Path | None = None) -> str | None:
    """The ID in extension/EXTENSION_ID (fixed by the manifest's key), None if absent."""
    path = root / EXTENSION_ID_FILE if root else shipped(EXTENSION_ID_FILE)
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not valid_extension_id(text):
        raise RewindError(
            Code.BAD_INPUT,
            f"{path} does not hold an extension ID (32 letters a-p).",
            "Rebuild the extension: python3 build.py build.",
        )
    return text


def allowed_origins() -> list[str]:
    """$REWIND_ALLOWED_ORIGINS (the launcher sets it at install), else the checkout's ID."""
    env = os.environ.get(ORIGINS_ENV, "").strip()
    if env:
        return [o.strip() for o in env.split(",") if o.strip()]
    ext_id = read_extension_id()
    return [origin(ext_id)] if ext_id else []
