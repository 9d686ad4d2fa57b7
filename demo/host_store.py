"""What the host has, read from outside the browser: its store's pages and its processes.

Job: `store_pages(data_dir)` through the engine opened read-only (nothing until the host
has said hello), `host_pids(data_dir)`: the `rewind serve` processes started for that
data dir (Linux: /proc).
Never: write to the store.
"""

from __future__ import annotations

from pathlib import Path

DB_FILE = "rewind.db"  # the host's store in its data dir (rewind.profile.stores.DB_NAME)


def store_pages(data_dir: Path) -> list[dict]:
    """The pages in the host's store, read through the engine opened read-only."""
    from rewind.errors import RewindError
    from rewind.profile.engine import Rewind

    if not (data_dir / DB_FILE).exists():
        return []  # the host has not said hello yet
    try:
        eng = Rewind.open(data_dir, writer=False, embedder=None)
    except RewindError:
        return []
    try:
        pages: list[dict] = []
        while True:
            batch = eng.list_pages(len(pages), 500)
            pages += batch
            if len(batch) < 500:
                return pages
    finally:
        eng.close()


def host_pids(data_dir: Path) -> list[int]:
    """Running `rewind serve` processes started for this data dir (Linux: /proc)."""
    marker = f"REWIND_DATA_DIR={data_dir}".encode()
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            if not (b"rewind" in argv and b"serve" in argv):
                continue  # zombies have an empty cmdline: they have exited
            if marker in (proc / "environ").read_bytes().split(b"\0"):
                pids.append(int(proc.name))
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return pids
