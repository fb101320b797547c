"""RFC 3339 dates and times: a real calendar, a real clock, a mandatory offset, ASCII digits."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

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


def test_instant_bounds_round_extra_fraction_digits_up() -> None:
    """Digits past the microsecond give the next microsecond as the ceiling."""
    bounds = rfc3339.instant_bounds("2026-03-01T12:00:00.0000001Z")
    assert bounds == (
        datetime(2026, 3, 1, 12, 0, 0, 0, tzinfo=UTC),
        datetime(2026, 3, 1, 12, 0, 0, 1, tzinfo=UTC),
    )


def test_rounding_up_ignores_trailing_zeros() -> None:
    """Zeros past the microsecond are exact, so the ceiling is the instant as written."""
    bounds = rfc3339.instant_bounds("2026-03-01T12:00:00.0000010Z")
    assert bounds == (datetime(2026, 3, 1, 12, 0, 0, 1, tzinfo=UTC),) * 2


@pytest.mark.parametrize("text", ["2026-02-30T12:00:00Z", "2026-03-01T12:00:00", "nope"])
def test_parse_date_time_returns_none_for_invalid_text(text: str) -> None:
    """Text that is not an RFC 3339 date-time gives None, never an exception."""
    assert rfc3339.parse_date_time(text) is None


def test_leap_second_maps_to_the_first_instant_of_the_next_minute() -> None:
    """23:59:60Z is read as 00:00:00Z of the next day."""
    parsed = rfc3339.parse_date_time("1998-12-31T23:59:60Z")
    assert parsed == datetime(1999, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("fraction", [".5", ".999999", ".9999999", ".0000001"])
def test_a_leap_second_with_a_fraction_is_never_read_past_the_next_minute(fraction: str) -> None:
    """23:59:60.9Z came before 00:00:00.0Z: both bounds are that instant, never 00:00:00.9Z."""
    first = datetime(1999, 1, 1, tzinfo=UTC)
    assert rfc3339.instant_bounds(f"1998-12-31T23:59:60{fraction}Z") == (first, first)


def test_leap_second_with_an_offset_maps_to_the_same_instant() -> None:
    """15:59:60-08:00 is the same leap second, and maps to 00:00:00Z the next day."""
    parsed = rfc3339.parse_date_time("1998-12-31T15:59:60-08:00")
    assert parsed == datetime(1999, 1, 1, tzinfo=UTC)
    assert parsed is not None
    assert parsed.utcoffset() == timedelta(hours=-8)


def test_a_ceiling_past_the_range_leaves_the_floor_as_written() -> None:
    """Only the bound that overflows is the last instant; the other is the one written."""
    text = "9999-12-31T23:59:59.9999999+05:00"
    floor = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=5)))
    assert rfc3339.parse_date_time(text) == floor
    assert rfc3339.instant_bounds(text) == (floor, datetime.max.replace(tzinfo=UTC))


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


# The reader works by position (no regular expression on a check's path); these are the
# grammar's expressions, which it must match exactly: the same text accepted, the same instant.
# (`fuzz/format_check.py` holds the readers to them too, on what libFuzzer finds.)
_DATE = r"(?P<year>[0-9]{4})-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})"
_TIME = (
    r"(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})(?P<fraction>\.[0-9]+)?"
    r"(?:(?P<utc>[Zz])|(?P<sign>[+-])(?P<off_hour>[0-9]{2}):(?P<off_minute>[0-9]{2}))"
)
GRAMMAR = {
    rfc3339.is_date: re.compile(_DATE),
    rfc3339.is_time: re.compile(_TIME),
    rfc3339.is_date_time: re.compile(f"{_DATE}[Tt]{_TIME}"),
}


def grammar_accepts(match: re.Match[str] | None) -> bool:
    """What the grammar plus the calendar and the clock accept (the reader's specification)."""
    if match is None:
        return False
    fields = match.groupdict()
    if "year" in fields:
        year, month, day = int(fields["year"]), int(fields["month"]), int(fields["day"])
        if not 1 <= month <= 12:
            return False
        leap = calendar.isleap(year)
        if not 1 <= day <= (29 if month == 2 and leap else calendar.mdays[month]):
            return False
    if "hour" not in fields:
        return True
    hour, minute, second = int(fields["hour"]), int(fields["minute"]), int(fields["second"])
    offset = 0
    if not fields["utc"]:
        off_hour, off_minute = int(fields["off_hour"]), int(fields["off_minute"])
        if off_hour > 23 or off_minute > 59:
            return False
        offset = (off_hour * 60 + off_minute) * (-1 if fields["sign"] == "-" else 1)
    if hour > 23 or minute > 59 or second > 60:
        return False
    return second < 60 or (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59


_PIECES = st.sampled_from(
    ["0", "1", "2", "3", "5", "6", "9", "00", "12", "23", "29", "59", "60", "99", "2024", "0000",
     "-", ":", ".", "T", "t", " ", "Z", "z", "+", "\u0661", "\uff10", "\n"]
)  # fmt: skip


@st.composite
def _spelt(draw: st.DrawFn) -> str:
    """A date, a time or a date-time with each field drawn near its bounds, maybe cut or grown."""

    def near(low: int, top: int) -> str:  # mostly in range, at times just past it
        inside = st.integers(low, top)
        value = draw(st.one_of(inside, inside, inside, st.sampled_from([low, top, top + 1, 0, 99])))
        return f"{value:02d}"

    year = draw(st.sampled_from([0, 1, 1900, 2000, 2024, 9999]) | st.integers(0, 9999))
    date = f"{year:04d}-{near(1, 12)}-{near(1, 28) if draw(st.booleans()) else near(28, 31)}"
    digits = st.text("0123456789", min_size=1, max_size=9)
    fraction = draw(st.sampled_from(["", "."]) | digits.map(".{}".format))
    sign = draw(st.sampled_from("Zz+-"))
    offset = sign if sign in "Zz" else f"{sign}{near(0, 23)}:{near(0, 59)}"
    time = f"{near(0, 23)}:{near(0, 59)}:{near(0, 59) if draw(st.booleans()) else near(58, 60)}"
    time += fraction + offset
    text = draw(st.sampled_from([date, time, f"{date}{draw(st.sampled_from('Tt'))}{time}"]))
    if draw(st.integers(0, 3)) == 0:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(_PIECES | st.just("")) + text[cut + draw(st.integers(0, 2)) :]
    return text


_NEAR_MISSES = st.one_of(_spelt(), _spelt(), _spelt(), st.lists(_PIECES, max_size=14).map("".join))


@settings(max_examples=800, deadline=None)
@given(_NEAR_MISSES)
def test_the_reader_accepts_exactly_what_the_grammar_and_calendar_accept(text: str) -> None:
    """`is_date`, `is_time` and `is_date_time` agree with RFC 3339's expressions on any text."""
    for reader, expression in GRAMMAR.items():
        assert reader(text) is grammar_accepts(expression.fullmatch(text)), (reader.__name__, text)


@settings(max_examples=400, deadline=None)
@given(_NEAR_MISSES)
@example("9999-12-31T23:59:59.9999999-01:00")  # a ceiling past datetime's range
@example("1998-12-31T23:59:60.0000001Z")  # a leap second and digits past the microsecond
def test_a_parsed_instant_is_the_one_the_fields_spell(text: str) -> None:
    """`parse_date_time` returns the instant the matched fields spell, or None for no match."""
    match = GRAMMAR[rfc3339.is_date_time].fullmatch(text)
    parsed = rfc3339.parse_date_time(text)
    if not grammar_accepts(match) or match is None or match["year"] == "0000":
        assert parsed is None
        return
    fields = {
        name: int(value) for name, value in match.groupdict().items() if value and value.isdigit()
    }
    sign = -1 if match["sign"] == "-" else 1
    offset = timedelta(
        minutes=sign * (fields.get("off_hour", 0) * 60 + fields.get("off_minute", 0))
    )
    leap = fields["second"] == 60
    micro = 0 if leap else int(((match["fraction"] or ".")[1:] + "000000")[:6])
    local = datetime(
        fields["year"], fields["month"], fields["day"], fields["hour"], fields["minute"],
        59 if leap else fields["second"], micro, timezone(offset),
    )  # fmt: skip
    try:
        expected = local + timedelta(seconds=1 if leap else 0)
    except OverflowError:  # 9999-12-31T23:59:60Z
        expected, offset = datetime.max.replace(tzinfo=UTC), timedelta(0)
    assert parsed == expected
    assert parsed is not None
    assert parsed.utcoffset() == offset
    beyond_micro = not leap and (match["fraction"] or ".")[7:].strip("0")
    try:
        ceiling = expected + timedelta(microseconds=1 if beyond_micro else 0)
    except OverflowError:  # 9999-12-31T23:59:59.9999999Z: the last instant
        ceiling = datetime.max.replace(tzinfo=UTC)
    assert rfc3339.instant_bounds(text) == (expected, ceiling)
