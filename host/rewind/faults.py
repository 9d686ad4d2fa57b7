"""Fault injection for crash tests: `hit(name)` kills this process with SIGKILL when
$REWIND_FAULT names that point, so a test can stop a writer between two stores.

Points: store_commit (inside the SQLite transaction, before COMMIT),
after_store_commit (the store committed, the text index not yet),
after_text_commit (tantivy committed, its applied sequence not yet recorded),
index_page (the host received a page; with $REWIND_FAULT_MATCH, only a page whose URL
contains it: a browser test makes one page kill the host every time it is sent).
vector_snapshot (index/derived/vector_file.py: a new snapshot written and synced, not yet
renamed), vector_compaction (the same moment when a snapshot folds its delta in:
index/derived/vectors.py), store_compact (index/store/store.py: before the VACUUM that
rewrites the store, as when a plaintext store has just been sealed).
export_batch (native/handlers.py: before each batch of pages an export reads), backup_frame
(native/backups.py: before each frame of a backup is sent).
With $REWIND_FAULT_KIND=enospc the point raises "No space left on device" instead: a full
disk at exactly that write (tests/test_faults_disk.py); with $REWIND_FAULT_KIND=slow it waits
$REWIND_FAULT_SLOW_S seconds (default 3) and goes on: a request slow enough for a test to act
while it runs (tests/browser/test_browser_ports.py closes the page an export streams to;
test_browser_worker.py stops the worker while a backup streams).
Never set $REWIND_FAULT outside tests.
"""

from __future__ import annotations

import errno
import os
import signal
import time


def hit(name: str, subject: str = "") -> None:
    if os.environ.get("REWIND_FAULT") != name:
        return
    if os.environ.get("REWIND_FAULT_MATCH", "") not in subject:
        return
    if os.environ.get("REWIND_FAULT_KIND") == "enospc":
        raise OSError(errno.ENOSPC, f"No space left on device (injected at {name})")
    if os.environ.get("REWIND_FAULT_KIND") == "slow":
        time.sleep(float(os.environ.get("REWIND_FAULT_SLOW_S", "3")))
        return
    os.kill(os.getpid(), signal.SIGKILL)
