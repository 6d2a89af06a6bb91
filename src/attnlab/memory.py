"""Freed memory goes back to the system: large buffers are mapped on their own, never kept.

glibc's malloc serves a request above its mmap threshold (128 KiB at first) with a mapping of
its own, returned to the system when freed — but each such free raises the threshold to the
freed size (up to 32 MiB). After one decoded camera frame (Pillow allocates a 4096² image in
16 MiB blocks) the next frames' buffers come from the heap of whichever thread decoded them,
and each thread has a heap of its own (an arena): freed, they stay with the process. Measured:
16 uploads at once left the server at 1.6 GB (PNG, 4096²) where one leaves it at 90 MB.

Setting the threshold fixes it (glibc then no longer moves it): every buffer of `LARGE_BYTES`
or more is mapped and unmapped on its own. Elsewhere than glibc (musl, macOS, Windows) this does
nothing; those allocators return large blocks already.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

LARGE_BYTES = 4 * 2**20  # a figure's arrays stay below (heap-fast); a decoded frame's blocks not
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)


@functools.lru_cache(maxsize=4)  # once a process (a test may try another size)
def map_large_buffers(large_bytes: int = LARGE_BYTES) -> bool:
    """Make this process's malloc map every buffer of `large_bytes` or more on its own (once);
    True if the allocator took it (glibc)."""
    libc = _glibc()
    return libc is not None and libc.mallopt(_M_MMAP_THRESHOLD, large_bytes) == 1


def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.gnu_get_libc_version  # noqa: B018 - glibc only: musl has mallopt as a stub
    except (OSError, AttributeError):
        return None
    return libc
