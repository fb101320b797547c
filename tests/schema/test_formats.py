"""The `format` values toolguard asserts: each accept/reject table is checked against its parser."""

from __future__ import annotations

import pytest

from toolguard.errors import SchemaError
from toolguard.schema import compile_schema
from toolguard.schema.formats import FORMAT_CHECKERS


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
    # NOTE: IDNA allows ZWNJ between joining letters; without Joining_Type data we refuse it.
    row("hostname", "xn--ngba5hb2804a", False, "ZWNJ between joining letters (fail closed)"),
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
    row("regex", "[]", True),
    row("regex", "^(abc]", False),
    row("regex", "\\a", False),
    row("regex", "(?P<name>x)", False, "Python named group"),
    row("regex", "(?i)abc", False, "inline flags"),
    row("regex", "a{2,1}", False, "a reversed quantifier range"),
    row("regex", "\\", False, "a lone backslash"),
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
    "date-time", "date", "time", "duration", "ipv4", "ipv6", "hostname", "email", "uri",
    "uri-reference", "iri", "iri-reference", "uri-template", "uuid", "json-pointer",
    "relative-json-pointer", "regex",
}  # fmt: skip


def test_supported_formats_are_exactly_the_parsed_ones() -> None:
    """The checker table holds the formats backed by real parsers, and nothing looser."""
    assert set(FORMAT_CHECKERS) == PARSED_FORMATS


@pytest.mark.parametrize("fmt", ["idn-hostname", "idn-email", "unknown-format"])
def test_format_without_a_faithful_parser_is_refused(fmt: str) -> None:
    """IDN formats need UTS #46 tables the standard library lacks: compiling them is refused."""
    with pytest.raises(SchemaError, match="cannot be asserted"):
        compile_schema({"format": fmt})


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
