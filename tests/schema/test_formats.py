"""The `format` values toolguard asserts: each accept/reject table is checked against its parser."""

from __future__ import annotations

import re
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard.errors import SchemaError
from toolguard.schema import compile_schema
from toolguard.schema.formats import FORMAT_CHECKERS, idna
from toolguard.schema.formats.network import (
    is_email,
    is_hostname,
    is_idn_email,
    is_idn_hostname,
)


def row(fmt: str, text: str, expected: bool, why: str = "") -> object:
    return pytest.param(fmt, text, expected, id=f"{fmt} {why or repr(text)} -> {expected}")


IPV4 = [
    row("ipv4", "0.0.0.0", True),
    row("ipv4", "192.168.0.1", True),
    row("ipv4", "255.255.255.255", True),
    row("ipv4", "256.0.0.1", False),
    row("ipv4", "01.2.3.4", False),  # leading zero: octal in some parsers
    row("ipv4", "1.2.3.04", False),
    row("ipv4", "1.2.3.00", False),
    row("ipv4", "1.2.3", False),
    row("ipv4", "1.2.3.4.5", False),
    row("ipv4", "1.2.3.\u0664", False),  # ARABIC-INDIC DIGIT FOUR
    row("ipv4", "\uff11.2.3.4", False),  # FULLWIDTH DIGIT ONE
    row("ipv4", "1.2.3.4\n", False),
    row("ipv4", " 1.2.3.4", False),
    row("ipv4", "0x7f.0.0.1", False),
    row("ipv4", "1.2.3.4/24", False),
    row("ipv4", "", False),
]

IPV6 = [
    row("ipv6", "::", True),
    row("ipv6", "::1", True),
    row("ipv6", "1::", True),
    row("ipv6", "1:2:3:4:5:6:7:8", True),
    row("ipv6", "fe80::1", True),
    row("ipv6", "FE80::ABCD", True),
    row("ipv6", "::ffff:192.168.0.1", True),
    row("ipv6", "fe80::1%eth0", False),  # zone index: not RFC 4291 address text
    row("ipv6", "fe80::1%1", False),
    row("ipv6", "::ffff:192.168.0.01", False),
    row("ipv6", "::ffff:256.0.0.1", False),
    row("ipv6", "12345::", False),
    row("ipv6", "1:2:3:4:5:6:7:8:9", False),
    row("ipv6", "1::2::3", False),
    row("ipv6", ":::", False),
    row("ipv6", "\uff11::", False),  # FULLWIDTH DIGIT ONE
    row("ipv6", "::\u0661", False),  # ARABIC-INDIC DIGIT ONE
    row("ipv6", "::1\n", False),
    row("ipv6", " ::1", False),
    row("ipv6", "[::1]", False),
    row("ipv6", "::1/128", False),
    row("ipv6", "", False),
]

UUID = [
    row("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", True),
    row("uuid", "2EB8AA08-AA98-11EA-B4AA-73B441D16380", True),
    row("uuid", "00000000-0000-0000-0000-000000000000", True),
    row("uuid", "2eb8aa08aa9811eab4aa73b441d16380", False),
    row("uuid", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}", False),
    row("uuid", "urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380", False),
    row("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638", False),
    row("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638g", False),
    row("uuid", "2eb8aa0-8aa98-11ea-b4aa-73b441d16380", False),
    row("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638\uff10", False),  # FULLWIDTH DIGIT ZERO
    row("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380\n", False),
]

DATES = [
    row("date", "2026-02-28", True),
    row("date", "2024-02-29", True),
    row("date", "2026-02-30", False),
    row("date", "2026-02-29", False),
    row("date", "2026-13-01", False),
    row("date", "2026-1-01", False),
    row("date", "2026-0\u0662-01", False),  # ARABIC-INDIC DIGIT TWO
    row("date", "2026-02-28\n", False),
    row("date-time", "2026-02-28T12:00:00Z", True),
    row("date-time", "2026-02-28T12:00:00+05:30", True),
    row("date-time", "2026-02-30T12:00:00Z", False),
    row("date-time", "2026-02-28T12:00:00", False),  # offset is mandatory
    row("date-time", "1998-12-31T23:59:60Z", True),
    row("date-time", "1998-12-31T22:59:60Z", False),
    row("time", "23:59:60Z", True),
    row("time", "15:59:60-08:00", True),
    row("time", "23:59:60+01:00", False),
    row("time", "12:00:00", False),
    row("time", "24:00:00Z", False),
]


DURATION = [
    row("duration", "P4DT12H30M5S", True),
    row("duration", "P1Y2M3DT4H5M6S", True),
    row("duration", "P2W", True),
    row("duration", "PT36H", True),
    row("duration", "P1M", True, "P1M is one month"),
    row("duration", "PT1M", True, "PT1M is one minute"),
    row("duration", "P0D", True),
    row("duration", "P01D", True, "a leading zero in a component"),
    row("duration", "p1dt2h", True, "ABNF letters are case-insensitive"),
    row("duration", "", False),
    row("duration", "P", False),
    row("duration", "PT", False),
    row("duration", "P1YT", False, "T without a time component"),
    row("duration", "PT1D", False),
    row("duration", "P2D1Y", False, "components out of order"),
    row("duration", "P2M1Y", False, "months before years"),
    row("duration", "PT2M1H", False, "minutes before hours"),
    row("duration", "P1Y1Y", False, "a component twice"),
    row("duration", "P1D2H", False, "missing T separator"),
    row("duration", "P1Y2D", False, "years then days without months"),
    row("duration", "PT1H2S", False, "hours then seconds without minutes"),
    row("duration", "P1Y2W", False, "weeks combined with another unit"),
    row("duration", "P1WT1H", False, "weeks combined with a time"),
    row("duration", "PT0.5S", False, "a fraction"),
    row("duration", "-P1D", False, "a sign"),
    row("duration", "P1", False, "a number without a unit"),
    row("duration", "P\u09e8Y", False, "BENGALI DIGIT TWO"),
    row("duration", "P1\u017f", False, "LATIN SMALL LETTER LONG S as the unit"),
    row("duration", "P1D\n", False),
]

# 252 octets: a mailbox of a one-octet local part, "@" and this is RFC 5321's longest path.
_DOMAIN_252 = ".".join(["b" * 63] * 3 + ["b" * 60])
EMAIL = [
    row("email", "joe.bloggs@example.com", True),
    row("email", "te~st@example.com", True),
    row("email", "!#$%&'*+-/=?^_`{|}~@example.com", True, "every atext symbol"),
    row("email", '"joe bloggs"@example.com', True),
    row("email", '"joe@bloggs"@example.com', True),
    row("email", '"a\\"b"@example.com', True, "quoted-pair in a quoted local part"),
    row("email", "joe@[127.0.0.1]", True),
    row("email", "joe@[IPv6:::1]", True),
    row("email", "joe@[ipv6:fe80::1]", True, "the IPv6 tag is case-insensitive"),
    row("email", "joe@localhost", True, "a single-label domain"),
    row("email", "a" * 64 + "@example.com", True, "a 64-octet local part"),
    row("email", "a" * 65 + "@example.com", False, "a 65-octet local part"),
    row("email", "2962", False),
    row("email", "@example.com", False),
    row("email", "joe@", False),
    row("email", ".joe@example.com", False),
    row("email", "joe.@example.com", False),
    row("email", "jo..e@example.com", False),
    row("email", "joe bloggs@example.com", False),
    row("email", '"joe\nbloggs"@example.com', False, "a control character in quotes"),
    row("email", "joe@invalid=domain.com", False),
    row("email", "joe@-example.com", False),
    row("email", "joe@[127.0.0.300]", False),
    row("email", "joe@[::1]", False, "an IPv6 literal without its tag"),
    row("email", "joe@[x-tag:abc]", False, "an unregistered general address literal"),
    row("email", "joe@[001.02.3.4]", True, "RFC 5321 Snums may have leading zeros"),
    row("email", "joe@[IPv6:::ffff:01.2.3.4]", True, "so may an IPv6 literal's IPv4 part"),
    row("email", "joe@[IPv6:1:2:3:4:5:6::]", True, "'::' for two zero groups"),
    row("email", "joe@[IPv6:1:2:3:4::1.2.3.4]", True, "'::' for two groups beside IPv4"),
    row("email", "joe@[IPv6:1:2:3:4:5:6:1.2.3.4]", True, "six groups and IPv4"),
    row("email", "joe@[IPv6:1:2:3:4:5:6:7::]", False, "'::' for one zero group"),
    row("email", "joe@[IPv6:1::3:4:5:6:7:8]", False, "'::' for one zero group, inside"),
    row("email", "joe@[IPv6:1:2:3:4:5::1.2.3.4]", False, "'::' for one group beside IPv4"),
    row("email", "joe@[IPv6:1:2:3:4:5:6:7:1.2.3.4]", False, "seven groups and IPv4"),
    row("email", "joe@[IPv6:1:2:3:4:5:6:7]", False, "seven groups"),
    row("email", "joe@[IPv6:1::2::3:4:5:6:7:8]", False, "'::' twice, eight groups written"),
    row("email", "joe@[IPv6:::1.2.3]", False, "a three-part IPv4 literal"),
    row("email", "joe@[IPv6:::0256.1.1.1]", False, "a four-digit Snum"),
    row("email", "joe@[256.1.1.1]", False),
    row("email", "joe@[1.2.3.\u0664]", False, "ARABIC-INDIC DIGIT FOUR in a Snum"),
    row("email", "joe@[IPv6:\uff11::]", False, "FULLWIDTH DIGIT ONE in a group"),
    row("email", "joe@[IPv6:1::2::3]", False),
    row("email", "a@" + _DOMAIN_252, True, "a 254-octet mailbox"),
    row("email", "ab@" + _DOMAIN_252, False, "a 255-octet mailbox (RFC 5321 4.5.3.1.3)"),
    row("email", "joe@xn--X.com", False, "an invalid A-label in the domain"),
    row("email", "j\u00f6e@example.com", False, "a non-ASCII local part"),
    row("email", "joe@example.com\n", False),
    row("email", "a@example.com, b@example.com", False),
]

HOSTNAME = [
    row("hostname", "www.example.com", True),
    row("hostname", "hostname", True),
    row("hostname", "1host", True),
    row("hostname", "a--b.com", True, "consecutive hyphens inside a label"),
    row("hostname", "a" * 63 + ".com", True, "a 63-octet label"),
    row("hostname", ".".join(["a" * 63] * 3 + ["a" * 61]), True, "253 octets in all"),
    row("hostname", "xn--9n2bp8q.xn--9t4b11yi5a", True, "Hangul A-labels"),
    row("hostname", "XN--9N2BP8Q.com", True, "an A-label in upper case"),
    row("hostname", "xn--ll-0ea", True, "MIDDLE DOT between two l"),
    row("hostname", "xn--wva3je", True, "KERAIA followed by Greek"),
    row("hostname", "xn--11b2ezcw70k", True, "ZWJ after a virama"),
    row("hostname", "", False),
    row("hostname", ".", False),
    row("hostname", "example.", False, "a trailing dot"),
    row("hostname", "a..b", False, "an empty label"),
    row("hostname", "-host", False),
    row("hostname", "host-", False),
    row("hostname", "host_name", False),
    row("hostname", "a" * 64 + ".com", False, "a 64-octet label"),
    row("hostname", ".".join(["a" * 63] * 3 + ["a" * 62]), False, "254 octets in all"),
    row("hostname", "example\uff0ecom", False, "FULLWIDTH FULL STOP"),
    row("hostname", "\u212aelvin.example", False, "KELVIN SIGN"),
    row("hostname", "example.com\n", False),
    row("hostname", "xn--X", False, "invalid Punycode"),
    row("hostname", "xn--example-", False, "an A-label that decodes to ASCII only"),
    row("hostname", "xn---9uc", False, "Punycode that does not re-encode to itself"),
    row("hostname", "XN--aa---o47jg78q", False, "a U-label with -- in positions 3 and 4"),
    row("hostname", "xn--07jt112bpxg", False, "U+302E, DISALLOWED by exception"),
    row("hostname", "xn--hello-zed", False, "a U-label that begins with a combining mark"),
    row("hostname", "xn--7a", False, "a U-label with a DISALLOWED code point"),
    row("hostname", "xn--al-0ea", False, "MIDDLE DOT without a preceding l"),
    row("hostname", "xn--S-jib3p", False, "KERAIA not followed by Greek"),
    row("hostname", "xn--5db1e", False, "GERESH not preceded by Hebrew"),
    row("hostname", "xn--vek", False, "KATAKANA MIDDLE DOT alone"),
    row("hostname", "xn--ngb6iyr", False, "Arabic-Indic and Extended Arabic-Indic digits"),
    row("hostname", "xn--02b508i", False, "ZWJ not after a virama"),
    row("hostname", "xn--0ca24w", False, "a U-label that breaks the Bidi rule"),
    row("hostname", "a.xn--4db", True, "a Bidi domain name"),
    row("hostname", "0a.xn--4db", False, "a digit-first label in a Bidi domain name"),
    row("hostname", "xn--ngba5hb2804a", True, "ZWNJ between joining letters"),
    row("hostname", "xn--ngba8ha8704a", True, "ZWNJ between joining letters, marks around it"),
    row("hostname", "xn--mgbc799q", False, "ZWNJ after a right-joining letter"),
    row("hostname", "xn--ab-j1t", False, "ZWNJ between non-joining letters"),
    row("hostname", "XN--LL-0EA", True, "an upper-case A-label whose U-label has ASCII"),
    row("hostname", "xn--bcher-kva.example", True),
    row("hostname", "xn--j50i", True, "a supplementary-plane Han ideograph"),
    row("hostname", "ab--cd.example", True, "an R-LDH label is still an RFC 1123 label"),
]

# idn-hostname: NR-LDH labels, A-labels and U-labels (RFC 5890 2.3.2.3), lengths in A-label form.
_LONG = ["a" * 63] * 3
IDN_HOSTNAME = [
    row("idn-hostname", "\uc2e4\ub840.\ud14c\uc2a4\ud2b8", True, "Hangul"),
    row("idn-hostname", "b\u00fccher.example", True),
    row("idn-hostname", "stra\u00dfe.de", True, "SHARP S, PVALID by exception"),
    row("idn-hostname", "\u4f8b\u5b50.\u5e7f\u544a", True, "Han"),
    row("idn-hostname", "\U00020000.example", True, "a supplementary-plane Han ideograph"),
    row("idn-hostname", "example.com", True),
    row("idn-hostname", "EXAMPLE.com", True, "upper case in an all-ASCII label"),
    row("idn-hostname", "xn--bcher-kva.example", True, "an A-label"),
    row("idn-hostname", "XN--BCHER-KVA.example", True, "an A-label in upper case"),
    row("idn-hostname", "b\u00fccher.xn--9n2bp8q", True, "a U-label and an A-label"),
    row("idn-hostname", "a\u3002b\uff0ec\uff61d", True, "all three IDN separators"),
    row("idn-hostname", "p\u0430ypal.com", True, "mixed scripts, a matter for registries"),
    row("idn-hostname", "\u0628\u064a\u200c\u0628\u064a", True, "ZWNJ between joining letters"),
    row("idn-hostname", "\u0628\u064b\u200c\u064b\u0628", True, "ZWNJ, transparent marks around"),
    row("idn-hostname", "\u05d0\u05d1.example", True, "a Bidi domain name"),
    row("idn-hostname", "\u05d01", True, "an RTL label ending in a digit"),
    row("idn-hostname", "\u00fc" * 57, True, "a U-label whose A-label has 63 octets"),
    row("idn-hostname", ".".join([*_LONG, "\u00fc" * 55]), True, "253 octets in A-label form"),
    row("idn-hostname", "", False),
    row("idn-hostname", ".", False),
    row("idn-hostname", "\u3002", False),
    row("idn-hostname", "a\u3002\u3002b", False, "an empty label between ideographic stops"),
    row("idn-hostname", "\uff0eexample", False, "a leading fullwidth full stop"),
    row("idn-hostname", "example\uff61", False, "a trailing halfwidth ideographic full stop"),
    row("idn-hostname", "example.", False, "a trailing dot"),
    row("idn-hostname", "a\ufe52b", False, "SMALL FULL STOP is no separator (DISALLOWED)"),
    row("idn-hostname", "a\u2024b", False, "ONE DOT LEADER is no separator (DISALLOWED)"),
    row("idn-hostname", "bu\u0308cher.example", False, "a label not in NFC"),
    row("idn-hostname", "B\u00fccher.example", False, "upper case in a U-label"),
    row("idn-hostname", "\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45", False, "fullwidth letters"),
    row("idn-hostname", "\u212aelvin", False, "KELVIN SIGN (Unstable)"),
    row("idn-hostname", "\U0001d54f", False, "a mathematical letter (Unstable)"),
    row("idn-hostname", "\U0001f600.example", False, "an emoji (DISALLOWED)"),
    row("idn-hostname", "\ud800.example", False, "a lone surrogate"),
    row("idn-hostname", "\udbff\udfff", False, "two surrogates, uncombined"),
    row("idn-hostname", "\U0010ffff", False, "a noncharacter"),
    row("idn-hostname", "\u0378.example", False, "an unassigned code point"),
    row("idn-hostname", "ab--cd.example", True, "an R-LDH label is a hostname label"),
    row("idn-hostname", "host_name", False),
    row("idn-hostname", "exa mple", False),
    row("idn-hostname", "example.com\n", False),
    row("idn-hostname", "xn--X", False, "invalid Punycode"),
    row("idn-hostname", "xn--mgbc799q", False, "ZWNJ after a right-joining letter"),
    row("idn-hostname", "a\u200cb", False, "ZWNJ between non-joining letters"),
    row("idn-hostname", "\u0628\u200c", False, "ZWNJ at the end"),
    row("idn-hostname", "\u200c\u0628", False, "ZWNJ at the start"),
    row("idn-hostname", "abc\u05d0", False, "Latin and Hebrew in one label (Bidi rule)"),
    row("idn-hostname", "1a.\u05d0", False, "a digit-first label in a Bidi domain name"),
    row("idn-hostname", "\u05d0.a\u0660", False, "an Arabic-Indic digit in an LTR label"),
    row("idn-hostname", "\u05d01\u0660", False, "an RTL label with both kinds of digit"),
    row("idn-hostname", "\u0628\u0660\u06f0", False, "both Arabic-Indic digit sets"),
    row("idn-hostname", "\u00fc" * 58, False, "a U-label whose A-label has 64 octets"),
    row("idn-hostname", ".".join([*_LONG, "\u00fc" * 56]), False, "254 octets in A-label form"),
    row("idn-hostname", "\u00fc" * 300, False, "an overlong U-label"),
    row("idn-hostname", "a." * 2000 + "a", False, "an overlong name"),
]

# Hyphens in a label (RFC 1123 2.1, RFC 5890 2.3.1, RFC 5891 4.2.3.1): (label, hostname,
# idn-hostname). Never first or last; `--` in positions 3 and 4 only in an A-label (`xn--`) or
# another ASCII (R-LDH) label, never in a U-label, nor in the U-label an A-label encodes.
_HYPHENS = [
    ("a-b", True, True),
    ("a--b", True, True),
    ("ab--cd", True, True),
    ("AB--CD", True, True),
    ("ab---cd", True, True),
    ("abc--d", True, True),
    ("x--", False, False),
    ("-ab", False, False),
    ("ab-", False, False),
    ("--", False, False),
    ("xn--bcher-kva", True, True),
    ("Xn--bcher-kva", True, True),
    ("xn--ab", False, False),
    ("XN--aa---o47jg78q", False, False),
    ("\u00fc-b", False, True),
    ("\u00fc--b", False, True),
    ("a\u00fcb--c", False, True),
    ("a\u00fc--b", False, False),
    ("\u00fcb--c", False, False),
    ("ab--\u00fc", False, False),
    ("xn--\u00fc", False, False),
    ("-\u00fcb", False, False),
    ("\u00fcb-", False, False),
    (idna.to_a_label("\u00fc--b"), True, True),
    (idna.to_a_label("a\u00fcb--c"), True, True),
    ("xn--ab--c-ova", False, False),
]
HYPHENS = [
    row(fmt, f"{label}.example", expected, f"{label!a}")
    for label, *verdicts in _HYPHENS
    for fmt, expected in zip(("hostname", "idn-hostname"), verdicts, strict=True)
]

# idn-email: RFC 6531 mailboxes, UTF-8 in the local part and an IDN domain.
IDN_EMAIL = [
    row("idn-email", "\uc2e4\ub840@\uc2e4\ub840.\ud14c\uc2a4\ud2b8", True, "Hangul"),
    row("idn-email", "\u03b4\u03bf\u03ba\u03b9\u03bc\u03ae@example.com", True),
    row("idn-email", '"\u03b4\u03bf\u03ba \u03b9\u03bc\u03ae"@example.com', True, "quoted UTF-8"),
    row("idn-email", "joe.bloggs@example.com", True),
    row("idn-email", "joe@b\u00fccher.example", True),
    row("idn-email", "joe@xn--bcher-kva.example", True),
    row("idn-email", "joe@a\u3002b", True, "an ideographic full stop in the domain"),
    row("idn-email", "user@cafe\u0301.com", True, "a domain that NFC makes a host name"),
    row("idn-email", "cafe\u0301@example.com", True, "a local part not in NFC"),
    row("idn-email", "\x85@example.com", True, "a C1 control is UTF8-non-ascii"),
    row("idn-email", "\uffff@example.com", True, "a noncharacter is UTF8-non-ascii"),
    row("idn-email", "\U0001d54f@example.com", True, "a supplementary-plane character"),
    row("idn-email", "\u00e9" * 32 + "@example.com", True, "a 64-octet UTF-8 local part"),
    row("idn-email", "joe@[127.0.0.1]", True),
    row("idn-email", "joe@[IPv6:::1]", True),
    row("idn-email", "\u00e9" * 33 + "@example.com", False, "a 66-octet local part of 33 chars"),
    row("idn-email", "a" * 65 + "@example.com", False, "a 65-octet local part"),
    row("idn-email", "user\uff20example.com", False, "FULLWIDTH COMMERCIAL AT"),
    row("idn-email", "\ud800@example.com", False, "a lone surrogate in the local part"),
    row("idn-email", '"\\\u00e9"@example.com', False, "quoted-pairSMTP stays ASCII"),
    row("idn-email", "jo..\u00e9@example.com", False),
    row("idn-email", ".\u00e9@example.com", False),
    row("idn-email", "\u00e9 e@example.com", False),
    row("idn-email", "joe@B\u00fccher.example", False, "upper case in a U-label"),
    row("idn-email", "joe@\u0300example.com", False, "a domain label led by a combining mark"),
    row("idn-email", "joe@[::1]", False, "an IPv6 literal without its tag"),
    row("idn-email", "joe@[x-tag:abc]", False),
    row("idn-email", "joe@[IPv6:1:2:3:4:5:6:7::]", False, "'::' for one zero group"),
    row("idn-email", "joe@[001.02.3.4]", True, "RFC 5321 Snums may have leading zeros"),
    row("idn-email", "\u00e9@" + _DOMAIN_252[1:], True, "a 254-octet mailbox"),
    row("idn-email", "\u00e9@" + _DOMAIN_252, False, "a 255-octet mailbox of 254 characters"),
    row("idn-email", "joe@xn--X.com", False),
    row("idn-email", "joe@ab--cd.example", True, "an R-LDH label in the domain"),
    row("idn-email", "joe@" + "e\u0301" * 2000, False, "an overlong domain"),
    row("idn-email", "2962", False),
    row("idn-email", "joe@", False),
    row("idn-email", "@example.com", False),
    row("idn-email", "joe@example.com\n", False),
]

URI = [
    row("uri", "http://foo.bar/?baz=qux#quux", True),
    row("uri", "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com", True, "every symbol"),
    row("uri", "ldap://[2001:db8::7]/c=GB?objectClass?one", True),
    row("uri", "http://[v1.fe]/", True, "an IPvFuture literal"),
    row("uri", "http://999.999.999.999/", True, "a dotted reg-name"),
    row("uri", "http://example.com:/", True, "an empty port"),
    row("uri", "mailto:John.Doe@example.com", True),
    row("uri", "urn:oasis:names:specification:docbook:dtd:xml:4.1.2", True),
    row("uri", "file:/etc/hosts", True),
    row("uri", "a+b.c-d:", True, "a scheme and an empty path"),
    row("uri", "//foo.bar/", False, "a network-path reference"),
    row("uri", "/abc", False),
    row("uri", "abc", False),
    row("uri", "", False),
    row("uri", "1http://example.com", False),
    row("uri", "ht_tp://example.com", False),
    row("uri", "http:// example.com", False),
    row("uri", "http://example.com/a b", False),
    row("uri", "http://example.com/a\\b", False, "a backslash"),
    row("uri", 'http://example.com/a"b<>{}|^`', False, "characters outside the grammar"),
    row("uri", "http://example.com/\u00ae", False, "a non-ASCII character"),
    row("uri", "http://example.com/%6G", False),
    row("uri", "http://example.com/%A", False),
    row("uri", "http://example.com:abc/", False),
    row("uri", "http://[::1", False, "an unclosed IP literal"),
    row("uri", "http://[::ffff:01.2.3.4]/", False, "a leading zero inside an IPv6 literal"),
    row("uri", "http://[fe80::1%25eth0]/", False, "a zone index (RFC 6874, not RFC 3986)"),
    row("uri", "http://[1.2.3.4]/", False, "an IPv4 address in brackets"),
    row("uri", "http://a@b@example.com/", False),
    row("uri", "http:/[::1]", False, "brackets in a path"),
    row("uri", "http://example.com/#a#b", False, "two fragments"),
    row("uri", "http://example.com/\n", False),
]

URI_REFERENCE = [
    row("uri-reference", "", True),
    row("uri-reference", "//", True),
    row("uri-reference", "/abc", True),
    row("uri-reference", "abc", True),
    row("uri-reference", "?q=1", True),
    row("uri-reference", "#fragment", True),
    row("uri-reference", "./this:that", True),
    row("uri-reference", "http://foo.bar/?baz=qux#quux", True),
    row("uri-reference", "1:b", False, "a colon in the first relative segment"),
    row("uri-reference", "#frag\\ment", False),
    row("uri-reference", "/%zz", False),
    row("uri-reference", "/[::1]", False),
    row("uri-reference", "//example.com:abc/", False),
    row("uri-reference", "//[::ffff:192.168.0.01]/", False),
    row("uri-reference", "/\u00e9", False, "a non-ASCII character"),
    row("uri-reference", "\\\\WINDOWS\\share", False),
]

IRI = [
    row("iri", "http://\u0192\u00f8\u00f8.\u00df\u00e5r/?\u2202=\u03c0#\u03c0", True),
    row("iri", "http://[2001:db8::1]", True),
    row("iri", "http://example.com/\U00010300", True, "a supplementary-plane character"),
    row("iri", "http://example.com/?q=\U000f0000", True, "a private-use character in a query"),
    row("iri", "http://example.com/\U000f0000", False, "a private-use character in a path"),
    row("iri", "http://example.com/#\ue000", False, "a private-use character in a fragment"),
    row("iri", "http://example.com/\ufffe", False, "a noncharacter"),
    row("iri", "http://example.com/\U000e0001", False, "a tag character (plane 14, not ucschar)"),
    row("iri", "http://example.com/\U000e1000", True, "plane 14 from U+E1000 is ucschar"),
    row("iri", "http://example.com/\U000dfffd", True, "the last ucschar of plane 13"),
    row("iri", "http://example.com/\U000dfffe", False, "a plane-13 noncharacter"),
    row("iri", "http://example.com/\ud800", False, "a lone surrogate"),
    row("iri", "http://example.com/\u0085", False, "a C1 control"),
    row("iri", "http://example.com/a\u3000b", True, "IDEOGRAPHIC SPACE is a ucschar"),
    row("iri", "\u00e2\u03c0\u03c0", False, "a relative reference"),
    row("iri", "http://2001:0db8::7334", False, "an IPv6 address without brackets"),
    row("iri", "http://\u0192\u00f8\u00f8.\u00df\u00e5r/\n", False),
    row("iri-reference", "\u00e2\u03c0\u03c0", True),
    row("iri-reference", "//\u0192\u00f8\u00f8.\u00df\u00e5r/", True),
    row("iri-reference", "#\u0192r\u00e4gment", True),
    row("iri-reference", "#\u0192r\u00e4g\\ment", False),
    row("iri-reference", "1:\u00e9", False, "a colon in the first relative segment"),
]

URI_TEMPLATE = [
    row("uri-template", "", True),
    row("uri-template", "http://example.com/dictionary/{term:1}/{term}", True),
    row("uri-template", "{+var}{#var}{.var}{/var}{;var}{?var}{&var}", True, "each operator"),
    row("uri-template", "{x,y*,z:1000}", True, "explode and prefix modifiers"),
    row("uri-template", "{a.b}{%41}", True, "dotted and percent-encoded names"),
    row("uri-template", "a'b", True, "an apostrophe (RFC 6570 erratum 6937)"),
    row("uri-template", "a%41b\U0001f600", True, "pct-encoded and ucschar literals"),
    row("uri-template", "{", False),
    row("uri-template", "foo}bar", False),
    row("uri-template", "{}", False),
    row("uri-template", "{a,,b}", False),
    row("uri-template", "{a,}", False),
    row("uri-template", "{a..b}", False),
    row("uri-template", "{v:0}", False),
    row("uri-template", "{v:01}", False),
    row("uri-template", "{v:10000}", False),
    row("uri-template", "{var=def}", False),
    row("uri-template", "{a-b}", False, "a hyphen in a variable name"),
    row("uri-template", "a b", False),
    row("uri-template", "a\x7fb", False),
    row("uri-template", "a%4", False),
    row("uri-template", 'a"b<>\\^`|', False, "characters outside literals"),
]

POINTERS = [
    row("json-pointer", "", True),
    row("json-pointer", "/", True),
    row("json-pointer", "/foo//bar/", True),
    row("json-pointer", "/a~1b/m~0n", True),
    row("json-pointer", "/foo\x00bar\n\u00e9\U0001f60e", True, "any character when escaped"),
    row("json-pointer", "#/foo", False, "URI fragment form"),
    row("json-pointer", "foo", False),
    row("json-pointer", "/foo~", False),
    row("json-pointer", "/~2", False),
    row("json-pointer", "/~~", False),
    row("relative-json-pointer", "0", True),
    row("relative-json-pointer", "0#", True),
    row("relative-json-pointer", "120/foo/bar", True),
    row("relative-json-pointer", "0//", True),
    row("relative-json-pointer", "", False),
    row("relative-json-pointer", "/foo", False),
    row("relative-json-pointer", "01/a", False),
    row("relative-json-pointer", "-1", False),
    row("relative-json-pointer", "+1", False),
    row("relative-json-pointer", "0##", False),
    row("relative-json-pointer", "1#/a", False),
    row("relative-json-pointer", "0/~2", False),
    row("relative-json-pointer", "\u0661", False, "ARABIC-INDIC DIGIT ONE"),
    row("relative-json-pointer", "1\n", False),
    # NOTE: draft-bhutton-relative-json-pointer-00 adds "0+1"; we follow handrews-02.
    row("relative-json-pointer", "0+1/a", False, "an index manipulation"),
]

REGEX = [
    row("regex", "([abc])+\\s+$", True),
    row("regex", "^[a-z]{2,3}(?:-[0-9]+)?$", True),
    row("regex", "(?<name>x)", True),
    row("regex", "(?<\\u0061bc>x)\\k<abc>", True, "a group name with a \\u escape"),
    row("regex", "(?<\u037a>x)", True, "a group name ID_Start allows, Python's rules not"),
    row("regex", "(?<\\u{1F600}>x)", False, "a group name that is an emoji"),
    row("regex", "[]", True),
    row("regex", "^(abc]", False),
    row("regex", "\\a", False),
    row("regex", "(?P<name>x)", False, "Python named group"),
    row("regex", "(?i)abc", False, "inline flags"),
    row("regex", "a{2,1}", False, "a reversed quantifier range"),
    row("regex", "\\", False, "a lone backslash"),
    row("regex", "\\p{Script=Greek}\\P{sc=Latn}", True, "Script values, long and short"),
    row("regex", "\\p{scx=Zyyy}", True, "a Script_Extensions value"),
    row("regex", "\\p{sc=Nope}", False, "an unknown Script value"),
    row("regex", "\\p{Latin}", False, "a Script value without its property"),
]


@pytest.mark.parametrize(
    ("fmt", "text", "expected"),
    IPV4
    + IPV6
    + UUID
    + DATES
    + DURATION
    + EMAIL
    + HOSTNAME
    + IDN_HOSTNAME
    + HYPHENS
    + IDN_EMAIL
    + URI
    + URI_REFERENCE
    + IRI
    + URI_TEMPLATE
    + POINTERS
    + REGEX,
)
def test_format_checker_table(fmt: str, text: str, expected: bool) -> None:
    """Each format checker accepts exactly the text its RFC grammar defines (ASCII digits only)."""
    assert FORMAT_CHECKERS[fmt](text) is expected


PARSED_FORMATS = {
    "date-time", "date", "time", "duration", "ipv4", "ipv6", "hostname", "email", "idn-hostname",
    "idn-email", "uri", "uri-reference", "iri", "iri-reference", "uri-template", "uuid",
    "json-pointer", "relative-json-pointer", "regex",
}  # fmt: skip


def test_supported_formats_are_exactly_the_parsed_ones() -> None:
    """The checker table holds the formats backed by real parsers, and nothing looser."""
    assert set(FORMAT_CHECKERS) == PARSED_FORMATS


def test_format_without_a_faithful_parser_is_refused() -> None:
    """A format toolguard has no parser for is refused at compile time, not ignored."""
    with pytest.raises(SchemaError, match="cannot be asserted"):
        compile_schema({"format": "unknown-format"})


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date-time", "2026-02-28T12:00:00Z", "2026-02-30T12:00:00Z"),
        ("date", "2026-02-28", "2026-02-30"),
        ("time", "12:00:00Z", "12:00:00"),
        ("ipv4", "10.0.0.1", "010.0.0.1"),
        ("ipv6", "fe80::1", "fe80::1%eth0"),
        ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "not-a-uuid"),
        ("duration", "P1DT2H", "P1D2H"),
        ("hostname", "example.com", "example_com"),
        ("email", "joe@example.com", "joe@@example.com"),
        ("idn-hostname", "b\u00fccher.example", "B\u00fccher.example"),
        ("idn-email", "j\u00f6e@b\u00fccher.example", "j\u00f6e\uff20b\u00fccher.example"),
        ("uri", "https://example.com/", "/relative"),
        ("uri-reference", "/relative", "/a b"),
        ("iri", "https://\u00e9.example/", "/\u00e9"),
        ("iri-reference", "/\u00e9", "/\u00e9 "),
        ("uri-template", "/users/{id}", "/users/{id"),
        ("json-pointer", "/a/0", "a/0"),
        ("relative-json-pointer", "1/a", "/a"),
        ("regex", "^a+$", "(?i)a"),
    ],
)
def test_compiled_schema_asserts_the_format(fmt: str, good: str, bad: str) -> None:
    """With formats on (the default), `format` is an assertion made by toolguard's checker."""
    validator = compile_schema({"format": fmt})
    assert validator.is_valid(good)
    assert not validator.is_valid(bad)


@pytest.mark.parametrize("fmt", sorted(FORMAT_CHECKERS))
def test_format_ignores_values_that_are_not_strings(fmt: str) -> None:
    """A format constrains strings only: a number or null is left to the other keywords."""
    validator = compile_schema({"format": fmt})
    assert validator.is_valid(5)
    assert validator.is_valid(None)


def test_format_is_an_annotation_when_formats_are_off() -> None:
    """With `formats=False`, an impossible date passes: format no longer asserts."""
    validator = compile_schema({"type": "string", "format": "date"}, formats=False)
    assert validator.is_valid("2026-02-30")


# Text that reaches the IDNA rules: separators, joiners, contextual and right-to-left characters.
_IDN_TRICKY = (
    'aZ09-.@"\\ \u3002\uff0e\uff61\uff20\u200c\u200d\u00b7l\u0375\u03b1\u05f3\u05d0'
    "\u30fb\u3041\u4e08\u0660\u06f0\u0628\u064a\u0627\u094d\u0915\u0300\u00fc\u0308"
    "\U00020000\U0001d54f\ud800\x85"
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.text(alphabet=_IDN_TRICKY), st.text(max_size=600)))
def test_host_and_mail_checkers_never_raise(text: str) -> None:
    """Any text gets a yes or no from every host and mail checker, never an exception."""
    for fmt in ("hostname", "email", "idn-hostname", "idn-email"):
        assert FORMAT_CHECKERS[fmt](text) in (True, False)


# One script per label, so that a good share of the generated names are valid.
_SCRIPTS = [
    "abcxyz0189-\u00fc\u00e9\u00df",
    "\u03b1\u03b2\u03b3\u03c2\u0375",
    "\uc2e4\ub840\ud14c\uc2a4\ud2b8",
    "\u4e08\u5b50\u3041\u30a1\u30fb\U00020000",
    "\u05d0\u05d1\u05d2\u05f3",
    "\u0628\u064a\u062a\u0660\u064b\u200c",
    "\u0915\u0937\u094d\u200d",
]
_LABELS = st.sampled_from(_SCRIPTS).flatmap(lambda s: st.text(alphabet=s, min_size=1, max_size=9))


@settings(max_examples=300, deadline=None)
@given(st.lists(_LABELS, min_size=1, max_size=4), st.sampled_from(".\u3002\uff0e\uff61"))
def test_a_valid_idn_hostname_has_a_valid_hostname_form(labels: list[str], separator: str) -> None:
    """A valid idn-hostname's A-label form is a valid `hostname`, in any case, and decodes back."""
    name = separator.join(labels)
    if not is_idn_hostname(name):
        return
    a_labels = [label if label.isascii() else idna.to_a_label(label) for label in labels]
    a_name = ".".join(a_labels)
    assert is_hostname(a_name)
    assert is_hostname(a_name.upper())
    assert is_idn_hostname(a_name)
    assert is_idn_email(f"\u00e9l\u00e8ve@{name}")
    for label, a_label in zip(labels, a_labels, strict=True):
        assert label.isascii() or idna.to_u_label(a_label) == label


@pytest.mark.parametrize(("fmt", "text", "expected"), HOSTNAME + HYPHENS)
def test_every_hostname_is_an_idn_hostname(fmt: str, text: str, expected: bool) -> None:
    """A valid `hostname` is a valid `idn-hostname` ("either RFC 1123 as for hostname", 7.3.3)."""
    if fmt == "hostname" and expected:
        assert is_idn_hostname(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abxnXN-", min_size=1, max_size=8), min_size=1, max_size=3))
def test_generated_hostnames_are_idn_hostnames(labels: list[str]) -> None:
    """Any LDH name, hyphens anywhere and `xn--` or not, is an `idn-hostname` if a `hostname`."""
    name = ".".join(labels)
    assert not is_hostname(name) or is_idn_hostname(name)


def _rfc5321_ipv6() -> re.Pattern[str]:
    """RFC 5321 4.1.3's IPv6-addr, its comments' group counts spelt out: the test's oracle."""
    hex4, snum = "[0-9A-Fa-f]{1,4}", "[0-9]{1,3}"
    ipv4 = rf"(?:{snum}\.){{3}}{snum}"

    def groups(count: int, after: str = "") -> str:
        return "" if count == 0 else f"{hex4}(?::{hex4}){{{count - 1}}}{after}"

    comp = [f"{groups(i)}::{groups(j)}" for i in range(7) for j in range(7 - i)]
    v4comp = [f"{groups(i)}::{groups(j, ':')}{ipv4}" for i in range(5) for j in range(5 - i)]
    full = [f"{hex4}(?::{hex4}){{7}}", f"{hex4}(?::{hex4}){{5}}:{ipv4}"]
    return re.compile("|".join(full + comp + v4comp))


_SMTP_IPV6 = _rfc5321_ipv6()


_IPV6_PIECES = ["1", "aB", "ffff", "12345", "g", ":", "::", ":::", ".", "01.2.3.4", "256.0.0.1"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_IPV6_PIECES), max_size=16).map("".join))
def test_email_ipv6_literal_follows_rfc_5321(address: str) -> None:
    """An `[IPv6:...]` literal is valid exactly as RFC 5321's IPv6-addr, `::` for 2+ groups."""
    expected = _SMTP_IPV6.fullmatch(address) is not None and all(
        int(snum) <= 255 for snum in address.rpartition(":")[2].split(".") if "." in address
    )
    assert is_email(f"joe@[IPv6:{address}]") is expected


_LONG = 100_000
_LONG_SHAPES = {
    "slashes": "/" * _LONG,
    "segments": "/a" * (_LONG // 2),
    "uri path": "a:" + "/" * _LONG,
    "uri query": "a:?" + "a" * _LONG,
    "percent escapes": "a:" + "%41" * (_LONG // 3),
    "iri": "a:" + "\u00e9" * _LONG,
    "template": "{a}" * (_LONG // 3),
    "relative pointer": "1" + "/a" * (_LONG // 2),
}


@pytest.mark.parametrize("fmt", sorted(set(FORMAT_CHECKERS) - {"regex"}))
def test_checking_a_long_string_holds_little_memory_per_character(fmt: str) -> None:
    """No checker keeps state per character: `re` once held ~200 bytes each for a URI's path.

    (`regex` parses its pattern into per-character ranges: bounded by `max_string_length`.)
    """
    check = FORMAT_CHECKERS[fmt]
    check("a")  # compile the grammar outside the measurement
    for shape, text in _LONG_SHAPES.items():
        tracemalloc.start()
        try:
            check(text)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 16 * len(text), shape
