"""The `format` values toolguard asserts, each checked by a real parser rather than a loose regex.

A format missing from `FORMAT_CHECKERS` is refused when a schema is compiled (with formats
asserted), because an unasserted format would silently let anything through.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

from toolguard import rfc3339

_IPV4 = re.compile(
    r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}"
    r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_IPV6_CHARS = re.compile(r"[0-9A-Fa-f:.]+")


def _ipv4(text: str) -> bool:
    return _IPV4.fullmatch(text) is not None


def _ipv6(text: str) -> bool:
    # NOTE: ipaddress accepts a "%scope" suffix and non-ASCII digits; RFC 4291 text does not.
    if _IPV6_CHARS.fullmatch(text) is None:
        return False
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _uuid(text: str) -> bool:
    return _UUID.fullmatch(text) is not None


FORMAT_CHECKERS: dict[str, Callable[[str], bool]] = {
    "date-time": rfc3339.is_date_time,
    "date": rfc3339.is_date,
    "time": rfc3339.is_time,
    "ipv4": _ipv4,
    "ipv6": _ipv6,
    "uuid": _uuid,
}
