"""The key behind keyed hashes of secret context values: the log never holds them in clear.

A keyed hash (HMAC-SHA256) lets an operator who holds the key check "was this the token?"
without the log revealing the token, even to a dictionary attack by someone with the log only.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from toolguard.errors import AuditError
from toolguard.files import write_atomic

KEY_BYTES = 32
_MAX_KEY_BYTES = 4096


def keyed_hash(key: bytes, value: object) -> str:
    """HMAC-SHA256 of the value's text, in hex."""
    return hmac.new(key, str(value).encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def load_key(path: Path) -> bytes:
    """Read the key file, creating it once (0600, random) if absent; raise `AuditError`."""
    try:
        if not path.exists():
            _create(path)
        with path.open("rb") as stream:
            key = stream.read(_MAX_KEY_BYTES + 1)
    except OSError as exc:
        raise AuditError("key_unreadable", f"audit key {path}: {exc.strerror or exc}") from None
    if not KEY_BYTES // 2 <= len(key) <= _MAX_KEY_BYTES:
        raise AuditError("key_unreadable", f"audit key {path} must hold 16 to 4096 bytes")
    return key


def _create(path: Path) -> None:
    """Write a new random key; of racing writers, the first one's key is everyone's."""
    write_atomic(path, os.urandom(KEY_BYTES), durable=True, replace=False)
