"""The host's wall clock for what must happen after a time: held pages wiped after a day.

`now()` is time.time(), unless $REWIND_TEST_CLOCK_FILE names a file holding a number of
seconds: then that many seconds are added (read at each call), so a browser test can move
a running host's clock a day forward and see held pages go.
Never set $REWIND_TEST_CLOCK_FILE outside tests.
"""

from __future__ import annotations

import os
import time


def now() -> float:
    path = os.environ.get("REWIND_TEST_CLOCK_FILE")
    if not path:
        return time.time()
    try:
        with open(path, encoding="utf-8") as fh:
            return time.time() + float(fh.read().strip() or 0)
    except (OSError, ValueError):
        return time.time()
