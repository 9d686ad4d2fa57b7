"""Giving memory the process has freed back to the system.

glibc's allocator keeps freed memory mapped when it lies below live blocks of its heap, and
after a large block is freed it raises the size under which later blocks come from the heap
rather than their own mappings; the soak (bench/perf/soak.py) showed this as resident
memory that stepped up after a large transient (a snapshot compaction, a writer's merge)
and stayed. `give_back` asks glibc to return every free page (malloc_trim); it is called
after such transients, and does nothing where the C library has no malloc_trim.
This module must never change what is allocated, only hand back what is already free.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the C library this process already runs on
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)  # glibc only (musl and others have none)
    if trim is not None:
        trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def give_back() -> bool:
    """Return the free pages of every malloc arena to the system (a few ms for a heap of
    hundreds of MB); whether this C library can."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
