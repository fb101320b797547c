"""Why a file toolguard is configured by is not the UTF-8 it reads: named, never repaired.

Contracts, schemas, key sets, fixtures' TOML and context files are often saved by another
editor on another system: with a byte-order mark, or as UTF-16. TOML and toolguard's strict
JSON read UTF-8 without a BOM; such a file is refused with what it is and how to save it,
instead of a parser's "invalid statement at line 1" or a message about a "response".
"""

from __future__ import annotations

# NOTE: UTF-32's marks first: UTF-32LE's starts with UTF-16LE's.
_MARKS = (
    (b"\xef\xbb\xbf", "starts with a UTF-8 byte-order mark (save it as UTF-8 without a BOM)"),
    (b"\xff\xfe\x00\x00", "is UTF-32LE (it starts with its byte-order mark): save it as UTF-8"),
    (b"\x00\x00\xfe\xff", "is UTF-32BE (it starts with its byte-order mark): save it as UTF-8"),
    (b"\xff\xfe", "is UTF-16LE (it starts with its byte-order mark): save it as UTF-8"),
    (b"\xfe\xff", "is UTF-16BE (it starts with its byte-order mark): save it as UTF-8"),
)


def encoding_problem(raw: bytes) -> str | None:
    """What keeps `raw` from being UTF-8 without a BOM, said for the operator; None if it is."""
    for mark, why in _MARKS:
        if raw.startswith(mark):
            return why
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"is not UTF-8 (byte {exc.start})"
    return None
