"""Formats over plain text: RFC 3339 durations, UUIDs, JSON Pointers and ECMA-262 patterns."""

from __future__ import annotations

import re

from toolguard.schema.regex import is_ecma_pattern

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

# RFC 3339 Appendix A, rule by rule: `dur-year` may carry months (then days) after it, never
# days alone; `dur-hour` may carry minutes (then seconds). Whole numbers only, ASCII digits.
# NOTE: ABNF strings are case-insensitive (RFC 5234 2.3), so "p1d" is valid; spelled as
# classes, because re.IGNORECASE would also let "S" match U+017F LATIN SMALL LETTER LONG S.
_N = "[0-9]+"
_SECOND = f"{_N}[Ss]"
_MINUTE = f"{_N}[Mm](?:{_SECOND})?"
_HOUR = f"{_N}[Hh](?:{_MINUTE})?"
_TIME = f"[Tt](?:{_HOUR}|{_MINUTE}|{_SECOND})"
_DAY = f"{_N}[Dd]"
_MONTH = f"{_N}[Mm](?:{_DAY})?"
_YEAR = f"{_N}[Yy](?:{_MONTH})?"
_DURATION = re.compile(f"[Pp](?:(?:{_DAY}|{_MONTH}|{_YEAR})(?:{_TIME})?|{_TIME}|{_N}[Ww])")

# RFC 6901: any character but "/" and "~", or "~0" / "~1". DOTALL: a newline is a character.
# NOTE: possessive (`*+`), as in `uri`: nothing a repetition took can start what follows it,
# and `re` would otherwise keep ~200 bytes of backtracking state per character.
_JSON_POINTER = re.compile(r"(?:/(?:[^/~]|~[01])*+)*+", re.DOTALL)
# Relative JSON Pointer (draft-handrews-relative-json-pointer-02): a non-negative integer
# without leading zeros, then "#" or a JSON Pointer.
_RELATIVE_JSON_POINTER = re.compile(r"(?:0|[1-9][0-9]*+)(?:#|(?:/(?:[^/~]|~[01])*+)*+)", re.DOTALL)


def is_uuid(text: str) -> bool:
    """RFC 4122 UUID text: 8-4-4-4-12 hex digits, no braces or URN prefix."""
    return _UUID.fullmatch(text) is not None


def is_duration(text: str) -> bool:
    """RFC 3339 Appendix A duration, e.g. P1Y2M3DT4H5M6S or P2W."""
    return _DURATION.fullmatch(text) is not None


def is_json_pointer(text: str) -> bool:
    """RFC 6901 JSON Pointer (string form, not the URI fragment form)."""
    return _JSON_POINTER.fullmatch(text) is not None


def is_relative_json_pointer(text: str) -> bool:
    """Relative JSON Pointer: `0#`, `1`, `2/a/b`; no sign, no leading zero, no index shift."""
    return _RELATIVE_JSON_POINTER.fullmatch(text) is not None


def is_regex(text: str) -> bool:
    """An ECMA-262 pattern (`u` flag), valid even if toolguard could not run it in a schema."""
    return is_ecma_pattern(text)
