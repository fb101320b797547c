"""The `format` values toolguard asserts: each accept/reject table is checked against its parser."""

from __future__ import annotations

import pytest

from toolguard.schema import compile_schema
from toolguard.schema.formats import FORMAT_CHECKERS


def row(fmt: str, text: str, expected: bool) -> object:
    return pytest.param(fmt, text, expected, id=f"{fmt} {text!r} -> {expected}")


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


@pytest.mark.parametrize(("fmt", "text", "expected"), IPV4 + IPV6 + UUID + DATES)
def test_format_checker_table(fmt: str, text: str, expected: bool) -> None:
    """Each format checker accepts exactly the strict, ASCII-only text its RFC defines."""
    assert FORMAT_CHECKERS[fmt](text) is expected


def test_supported_formats_are_exactly_the_parsed_ones() -> None:
    """The checker table holds the six formats backed by real parsers, and nothing looser."""
    assert set(FORMAT_CHECKERS) == {"date-time", "date", "time", "ipv4", "ipv6", "uuid"}


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date-time", "2026-02-28T12:00:00Z", "2026-02-30T12:00:00Z"),
        ("date", "2026-02-28", "2026-02-30"),
        ("time", "12:00:00Z", "12:00:00"),
        ("ipv4", "10.0.0.1", "010.0.0.1"),
        ("ipv6", "fe80::1", "fe80::1%eth0"),
        ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "not-a-uuid"),
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
