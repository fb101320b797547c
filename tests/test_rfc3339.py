"""RFC 3339 dates and times: a real calendar, a real clock, a mandatory offset, ASCII digits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from toolguard import rfc3339


def row(text: str, expected: bool) -> object:
    return pytest.param(text, expected, id=f"{text!r} -> {expected}")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        row("2026-01-31", True),
        row("2024-02-29", True),  # leap year
        row("2000-02-29", True),  # divisible by 400
        row("1900-02-29", False),  # divisible by 100, not by 400
        row("2026-02-29", False),
        row("2026-02-30", False),
        row("2026-04-31", False),
        row("2026-00-10", False),
        row("2026-13-10", False),
        row("2026-01-00", False),
        row("0000-01-01", True),  # RFC 3339 date-fullyear is 4DIGIT: 0000 is a year
        row("2026-1-01", False),
        row("26-01-01", False),
        row("2026/01/01", False),
        row("\u0662\u0660\u0662\u0666-01-01", False),  # Arabic-Indic year
        row("2026-01-\uff10\uff11", False),  # fullwidth day
        row("2026-01-01\n", False),
        row("2026-01-01T00:00:00Z", False),
    ],
)
def test_is_date(text: str, expected: bool) -> None:
    """A full-date is four-two-two ASCII digits naming a day that exists."""
    assert rfc3339.is_date(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        row("00:00:00Z", True),
        row("23:59:59z", True),
        row("12:34:56.789+02:00", True),
        row("12:34:56-00:00", True),
        row("23:59:60Z", True),
        row("15:59:60-08:00", True),  # 23:59:60 UTC
        row("00:29:60+00:30", True),  # 23:59:60 UTC
        row("23:59:60+01:00", False),  # 22:59:60 UTC
        row("12:00:60Z", False),
        row("12:00:00", False),  # offset is mandatory
        row("24:00:00Z", False),
        row("12:60:00Z", False),
        row("12:00:61Z", False),
        row("12:00:00+24:00", False),
        row("12:00:00+01:60", False),
        row("12:00:00+0100", False),
        row("12:00:00.Z", False),
        row("12:00Z", False),
        row("1\u0662:00:00Z", False),
        row("12:00:00Z\n", False),
    ],
)
def test_is_time(text: str, expected: bool) -> None:
    """A full-time is a real clock time with an offset; 60 seconds only at 23:59 UTC."""
    assert rfc3339.is_time(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        row("2026-03-01T12:00:00Z", True),
        row("2026-03-01t12:00:00z", True),
        row("2026-03-01T12:00:00.123456789+05:30", True),
        row("1998-12-31T23:59:60Z", True),
        row("1998-12-31T15:59:60-08:00", True),
        row("2026-02-30T12:00:00Z", False),
        row("2026-03-01T12:00:00", False),
        row("2026-03-01 12:00:00Z", False),
        row("2026-03-01T12:00:00ZZ", False),
        row("2026-03-01T23:58:60Z", False),
        row("2026-03-01T12:00:00+\u0660\u0661:00", False),
        row("2026-03-01", False),
        row("", False),
    ],
)
def test_is_date_time(text: str, expected: bool) -> None:
    """A date-time is a valid date, "T", and a valid full-time."""
    assert rfc3339.is_date_time(text) is expected


@pytest.mark.parametrize(
    "text",
    [
        "2026-03-01T12:00:00Z",
        "2026-03-01T12:00:00+05:30",
        "2026-03-01T12:00:00-00:00",
        "1998-12-31T23:59:60Z",
    ],
)
def test_parse_date_time_returns_an_aware_datetime(text: str) -> None:
    """Every parsed instant carries its UTC offset, so it compares safely with `now`."""
    parsed = rfc3339.parse_date_time(text)
    assert parsed is not None
    assert parsed.utcoffset() is not None


def test_parse_date_time_keeps_the_offset_and_the_instant() -> None:
    """The offset is kept as written and the instant is the same as in UTC."""
    parsed = rfc3339.parse_date_time("2026-03-01T12:00:00.25+05:30")
    assert parsed == datetime(2026, 3, 1, 6, 30, 0, 250000, tzinfo=UTC)
    assert parsed is not None
    assert parsed.utcoffset() == timedelta(hours=5, minutes=30)


def test_parse_date_time_truncates_fractions_to_microseconds() -> None:
    """Digits past the sixth fractional digit are dropped, not rounded into the next second."""
    parsed = rfc3339.parse_date_time("2026-03-01T12:00:59.9999999Z")
    assert parsed == datetime(2026, 3, 1, 12, 0, 59, 999999, tzinfo=UTC)


def test_parse_date_time_can_round_extra_fraction_digits_up() -> None:
    """With `round_up`, digits past the microsecond give the next microsecond (the ceiling)."""
    parsed = rfc3339.parse_date_time("2026-03-01T12:00:00.0000001Z", round_up=True)
    assert parsed == datetime(2026, 3, 1, 12, 0, 0, 1, tzinfo=UTC)


def test_round_up_ignores_trailing_zeros() -> None:
    """Zeros past the microsecond are exact, so `round_up` leaves the instant as written."""
    parsed = rfc3339.parse_date_time("2026-03-01T12:00:00.0000010Z", round_up=True)
    assert parsed == datetime(2026, 3, 1, 12, 0, 0, 1, tzinfo=UTC)


@pytest.mark.parametrize("text", ["2026-02-30T12:00:00Z", "2026-03-01T12:00:00", "nope"])
def test_parse_date_time_returns_none_for_invalid_text(text: str) -> None:
    """Text that is not an RFC 3339 date-time gives None, never an exception."""
    assert rfc3339.parse_date_time(text) is None


def test_leap_second_maps_to_the_first_instant_of_the_next_minute() -> None:
    """23:59:60Z is read as 00:00:00Z of the next day."""
    parsed = rfc3339.parse_date_time("1998-12-31T23:59:60Z")
    assert parsed == datetime(1999, 1, 1, tzinfo=UTC)


def test_leap_second_with_an_offset_maps_to_the_same_instant() -> None:
    """15:59:60-08:00 is the same leap second, and maps to 00:00:00Z the next day."""
    parsed = rfc3339.parse_date_time("1998-12-31T15:59:60-08:00")
    assert parsed == datetime(1999, 1, 1, tzinfo=UTC)
    assert parsed is not None
    assert parsed.utcoffset() == timedelta(hours=-8)


def test_last_representable_leap_second_does_not_crash() -> None:
    """9999-12-31T23:59:60Z is valid text past datetime's range: it parses to the last instant."""
    parsed = rfc3339.parse_date_time("9999-12-31T23:59:60Z")
    assert parsed == datetime.max.replace(tzinfo=UTC)
    assert rfc3339.is_date_time("9999-12-31T23:59:60Z")


def test_negative_offset_is_kept() -> None:
    """A negative offset gives a fixed-offset zone west of UTC."""
    parsed = rfc3339.parse_date_time("2026-03-01T12:00:00-03:30")
    assert parsed is not None
    assert parsed.tzinfo == timezone(-timedelta(hours=3, minutes=30))
