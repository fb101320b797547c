"""SHA-256, from the interpreter's own module unless `hashlib` pays for itself.

`hashlib` brings in OpenSSL: about a fifth of a one-shot check's start-up and 1.4 MiB of
memory, to hash a few kilobytes (the response, the contract, its schemas, a cache entry).
The interpreter's own module (`_sha256`; `_sha2` from Python 3.12 on) gives the same digests
without it, about six times slower per byte, so `hashlib` is used when it is already loaded (a
long-running `serve`), or when the data is large enough that its speed is worth its start-up
and its memory (4 MiB and more). NOTE: not from 1 MiB, where the time breaks even (4.2 ms
either way, import included): an oversize response is read to the default limit plus one
byte and hashed, and OpenSSL would make that rejection 5.5 MiB heavier than an acceptance.
"""

from __future__ import annotations

import sys

from toolguard.standins import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import _Hash
    from typing import Any

_LARGE = 4 << 20  # bytes from which OpenSSL's speed repays importing it (see above)


def sha256(data: bytes = b"") -> _Hash:
    """A SHA-256 hash object (`update`, `digest`, `hexdigest`) fed `data`."""
    builtin = None if "hashlib" in sys.modules or len(data) >= _LARGE else _builtin()
    if builtin is None:
        import hashlib  # noqa: PLC0415 - see the module docstring

        return hashlib.sha256(data)
    made: _Hash = builtin(data)
    return made


@cache
def _builtin() -> Any:
    """The interpreter's own `sha256` constructor, or None."""
    # Python 3.12 merged `_sha256` into `_sha2`.
    name = "_sha2" if sys.version_info >= (3, 12) else "_sha256"
    try:
        return getattr(__import__(name), "sha256", None)
    except ImportError:  # pragma: no cover - an interpreter built without it
        return None


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data`, as 64 hexadecimal digits."""
    return sha256(data).hexdigest()
