"""Formats that name hosts and mailboxes: IPv4/IPv6 text, host names, e-mail addresses.

`hostname` and `email` are the ASCII forms (RFC 1123, RFC 5321); `idn-hostname` and `idn-email`
their internationalized forms (IDNA2008, RFC 5890-5893; SMTPUTF8, RFC 6531).
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Callable
from functools import cache

from toolguard.schema.formats import idna

_IPV4 = re.compile(
    r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}"
    r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
)
_IPV6_CHARS = re.compile(r"[0-9A-Fa-f:.]+")
_LABEL_OCTETS = 63  # RFC 1034 section 3.1
_NAME_OCTETS = 253  # RFC 1034 section 3.1: 255 on the wire, less the length and root octets
# RFC 3490 section 3.1: FULL STOP, IDEOGRAPHIC FULL STOP, FULLWIDTH FULL STOP and HALFWIDTH
# IDEOGRAPHIC FULL STOP all separate labels.
_IDN_SEPARATORS = re.compile("[.\u3002\uff0e\uff61]")


@cache
def _local_part(extra: str) -> re.Pattern[str]:
    """RFC 5321 section 4.1.2 Dot-string or Quoted-string, atext and qtextSMTP plus `extra`."""
    atom = rf"[A-Za-z0-9!#$%&'*+\-/=?^_`{{|}}~{extra}]+"
    quoted = rf'"(?:[\x20\x21\x23-\x5b\x5d-\x7e{extra}]|\\[\x20-\x7e])*"'
    return re.compile(rf"{atom}(?:\.{atom})*|{quoted}")


_ASCII_ONLY = ""
# RFC 6531 section 3.3: atext and qtextSMTP also admit UTF8-non-ascii, i.e. any code point above
# U+007F that UTF-8 can encode (RFC 3629 section 4): all but the surrogates. quoted-pairSMTP
# stays ASCII.
_UTF8_NON_ASCII = r"\x80-\ud7ff\ue000-\U0010ffff"  # compiled on first use: ~8 ms
_LOCAL_PART_OCTETS = 64  # RFC 5321 section 4.5.3.1.1
# RFC 5321 section 4.5.3.1.3: a path is at most 256 octets, "<" and ">" included.
_MAILBOX_OCTETS = 254
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
# NFC output is at least a quarter of its input's length (a canonical decomposition holds at
# most four code points), so a longer domain cannot normalize to a host name.
_NFC_SHRINK = 4


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

    An A-label is decoded and held to IDNA2008 (RFC 5891-5893), see `idna`.
    """
    if not text.isascii() or len(text) > _NAME_OCTETS:
        return False
    labels = text.split(".")
    if not all(idna.LDH_LABEL.fullmatch(label) for label in labels):
        return False
    return idna.is_a_label_domain(labels)


def is_idn_hostname(text: str) -> bool:
    """An internationalized host name: `hostname` labels and U-labels (RFC 5890 2.3.2.3).

    Every `hostname` is one (Validation 2020-12 section 7.3.3: "either RFC 1123 as for hostname,
    or" an IDN). Labels are held to IDNA2008 (RFC 5891 section 5.4, see `idna`); their lengths
    are those of the A-label form: 63 octets a label, 253 in all.
    """
    # Each character is at least one octet of the A-label form: a longer text cannot fit.
    if len(text) > _NAME_OCTETS:
        return False
    labels = _IDN_SEPARATORS.split(text)
    forms = [idna.label_form(label) for label in labels]
    u_labels = [form for form in forms if form is not None]
    if len(u_labels) != len(labels):
        return False
    a_labels = [label if label.isascii() else idna.to_a_label(label) for label in labels]
    if any(len(a_label) > _LABEL_OCTETS for a_label in a_labels):
        return False
    return len(".".join(a_labels)) <= _NAME_OCTETS and idna.satisfies_bidi(u_labels)


def is_email(text: str) -> bool:
    """RFC 5321 Mailbox: a dot-atom or quoted local part, then a host name or address literal."""
    return _is_mailbox(text, _local_part(_ASCII_ONLY), is_hostname)


def is_idn_email(text: str) -> bool:
    """RFC 6531 Mailbox: `email` with UTF-8 in the local part and an IDN domain.

    The domain is brought to NFC first, as IDNA lookup does (RFC 5891 section 5.2): a decomposed
    `e` + COMBINING ACUTE ACCENT in it is read as its composed form, and the JSON-Schema-Test-Suite
    counts such an address valid. A bare `idn-hostname` must already be in NFC. The local part is
    taken as written, in any normalization form.
    """
    return _is_mailbox(text, _local_part(_UTF8_NON_ASCII), _is_idn_mail_domain)


def _is_idn_mail_domain(domain: str) -> bool:
    if len(domain) > _NFC_SHRINK * _NAME_OCTETS:
        return False
    return is_idn_hostname(unicodedata.normalize("NFC", domain))


def _is_mailbox(text: str, local_part: re.Pattern[str], is_domain: Callable[[str], bool]) -> bool:
    """Local-part "@" ( Domain / address-literal ), split at the last U+0040 (RFC 5321 4.1.2).

    At most 254 octets in all (4.5.3.1.3), 64 of them in the local part (4.5.3.1.1).
    """
    # Each character is at least one octet: a longer text cannot fit.
    if len(text) > _MAILBOX_OCTETS:
        return False
    local, at, domain = text.rpartition("@")
    if not at or len(local) > _LOCAL_PART_OCTETS or local_part.fullmatch(local) is None:
        return False
    # RFC 5321 counts octets; the patterns admit no surrogate, so the local part encodes.
    if len(local.encode("utf-8")) > _LOCAL_PART_OCTETS:
        return False
    if domain.startswith("[") and domain.endswith("]"):
        valid = _is_address_literal(domain[1:-1])
    else:
        valid = is_domain(domain)
    # A valid domain holds no surrogate either, so the whole mailbox encodes.
    return valid and len(text.encode("utf-8")) <= _MAILBOX_OCTETS


def _is_address_literal(literal: str) -> bool:
    """RFC 5321 section 4.1.3: an IPv4 address, or `IPv6:` and an IPv6 address, in its grammar.

    Not the `ipv4` and `ipv6` formats': a `Snum` may have leading zeros (`[001.2.3.4]`), and
    `::` must stand for two zero groups or more (`[IPv6:1:2:3:4:5:6:7::]` is not a literal).
    """
    # NOTE: no General-address-literal tag other than IPv6 is registered, so none is valid.
    if literal[:5].lower() == "ipv6:":
        return _is_smtp_ipv6(literal[5:])
    return _is_snum_quad(literal)


def _is_snum_quad(text: str) -> bool:
    """IPv4-address-literal: four `Snum`s, 1-3 ASCII digits each, at most 255."""
    snums = text.split(".")
    return len(snums) == 4 and all(
        len(snum) <= 3 and _digits(snum) and int(snum) <= 255 for snum in snums
    )


def _is_smtp_ipv6(text: str) -> bool:
    """IPv6-addr: IPv6-full / IPv6-comp / IPv6v4-full / IPv6v4-comp.

    Eight groups, or six and an IPv4 literal; `::` stands for two groups or more, so a
    compressed address writes at most six (four beside an IPv4 literal). Erratum 2467, which
    would have let `::` stand for one group, was rejected.
    """
    groups, tail = 8, text.rpartition(":")[2]
    if "." in tail:
        if not _is_snum_quad(tail):
            return False
        text = text[: len(text) - len(tail)]
        groups -= 2
        if not text.endswith("::"):
            text = text[:-1]  # the ":" before the IPv4 literal
    halves = text.split("::")
    if len(halves) > 2:
        return False
    written = [group for half in halves if half for group in half.split(":")]
    if not all(0 < len(group) <= 4 and set(group) <= _HEX_DIGITS for group in written):
        return False
    return len(written) <= groups - 2 if len(halves) == 2 else len(written) == groups


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()
