"""Formats that name hosts and mailboxes: IPv4/IPv6 text, RFC 1123 host names, RFC 5321 e-mail."""

from __future__ import annotations

import ipaddress
import re

from toolguard.schema.formats.idna import is_a_label_domain

_IPV4 = re.compile(
    r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}"
    r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
)
_IPV6_CHARS = re.compile(r"[0-9A-Fa-f:.]+")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")

# RFC 5321 section 4.1.2: Dot-string or Quoted-string (qtextSMTP / quoted-pairSMTP).
_ATOM = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+"
_LOCAL_PART = re.compile(
    rf'{_ATOM}(?:\.{_ATOM})*|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"'
)
_LOCAL_PART_OCTETS = 64  # RFC 5321 section 4.5.3.1.1


def is_ipv4(text: str) -> bool:
    """RFC 2673 dotted quad: four decimal octets, no leading zeros."""
    return _IPV4.fullmatch(text) is not None


def is_ipv6(text: str) -> bool:
    """RFC 4291 IPv6 address text, ASCII only, without a zone index."""
    # NOTE: ipaddress accepts a "%scope" suffix and non-ASCII digits; RFC 4291 text does not.
    if _IPV6_CHARS.fullmatch(text) is None:
        return False
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def is_hostname(text: str) -> bool:
    """RFC 1123 host name: LDH labels of 1-63 octets, 253 in all; `xn--` labels must be A-labels.

    An A-label is decoded and held to IDNA2008 (RFC 5891-5893): one we cannot prove valid with
    the standard library's Unicode data is rejected, never assumed valid.
    """
    if not text.isascii() or len(text) > 253:
        return False
    labels = text.split(".")
    if not all(_LABEL.fullmatch(label) for label in labels):
        return False
    return is_a_label_domain(labels)


def is_email(text: str) -> bool:
    """RFC 5321 Mailbox: a dot-atom or quoted local part, then a host name or address literal."""
    local, at, domain = text.rpartition("@")
    if not at or _LOCAL_PART.fullmatch(local) is None or len(local) > _LOCAL_PART_OCTETS:
        return False
    if domain.startswith("[") and domain.endswith("]"):
        literal = domain[1:-1]
        # NOTE: no General-address-literal tag other than IPv6 is registered, so none is valid.
        return is_ipv4(literal) or (literal[:5].lower() == "ipv6:" and is_ipv6(literal[5:]))
    return is_hostname(domain)
