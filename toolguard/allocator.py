"""Large buffers given back to the system once freed: glibc's malloc told so, once.

glibc serves an allocation of 128 KiB or more with an mmap of its own, unmapped when freed;
but each time it frees such a block it raises that threshold to the block's size (up to
32 MiB), so the next buffers of that size come from the heap, whose freed pages stay
resident. Parsing a large document allocates several buffers of about its size (its text,
the fast path's screen): from the second one in a process, peak RSS grew by about twice the
document (10 MB: 96 MiB, then 116 MiB, where `json.loads` stays at 87 MiB). Setting the
threshold pins it at glibc's initial value: every large buffer stays an mmap of its own.
"""

from __future__ import annotations

from toolguard.standins import cache

_M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
_THRESHOLD = 128 * 1024  # glibc's initial value (DEFAULT_MMAP_THRESHOLD_MIN)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@cache
def return_large_blocks() -> bool:
    """Pin glibc's mmap threshold (once per process); whether the C library took it.

    NOTE: elsewhere (macOS has no `mallopt`, musl ignores it) nothing changes. `ctypes` is
    imported here only: for a large document, whose parse costs far more.
    """
    try:
        import ctypes  # noqa: PLC0415 - only for a large document

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, _THRESHOLD))


def trim_heap() -> None:
    """Give the heap's free pages back to the system now (glibc's `malloc_trim`).

    NOTE: buffers under the mmap threshold come from the heap, whose freed pages stay
    resident: after the fast path's screen (chunks of 64 KiB) about 1.5 MiB of them would
    stay beside the value `json` builds next. Elsewhere (no `malloc_trim`) nothing happens.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Any:
    try:
        import ctypes  # noqa: PLC0415 - only for a large document

        return ctypes.CDLL(None).malloc_trim
    except (ImportError, OSError, AttributeError):
        return None
