"""RFC 3339 dates and times, parsed for real: shared by the `format` checks and freshness rules.

A regex that looks like a timestamp accepts 2026-02-30; these functions check the calendar,
the clock (a leap second only at 23:59:60 UTC) and the offset, and take ASCII digits only.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta, timezone

_DATE = r"(?P<year>[0-9]{4})-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})"
_TIME = (
    r"(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})(?P<fraction>\.[0-9]+)?"
    r"(?:(?P<utc>[Zz])|(?P<sign>[+-])(?P<off_hour>[0-9]{2}):(?P<off_minute>[0-9]{2}))"
)
_DATE_RE = re.compile(_DATE)
_TIME_RE = re.compile(_TIME)
_DATE_TIME_RE = re.compile(f"{_DATE}[Tt]{_TIME}")
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def parse_date_time(text: str, *, round_up: bool = False) -> datetime | None:
    """Return the aware instant `text` denotes, or None if it is not an RFC 3339 date-time.

    Digits past the microsecond are truncated, or rounded up with `round_up` (so a bound
    check that must not under-estimate an instant can ask for the ceiling). A leap second
    (23:59:60 UTC) is returned as the first instant of the next minute.
    """
    match = _DATE_TIME_RE.fullmatch(text)
    if match is None or not _valid_date(match) or (parts := _clock(match)) is None:
        return None
    if int(match["year"]) == 0:
        return None  # a valid date-time, but no instant `datetime` can hold
    hour, minute, second, micro, offset = parts
    beyond_micro = (match["fraction"] or "")[7:]
    extra = timedelta(microseconds=1) if round_up and beyond_micro.strip("0") else timedelta()
    year, month, day = int(match["year"]), int(match["month"]), int(match["day"])
    leap = second == 60
    local = datetime(year, month, day, hour, minute, 59 if leap else second, micro, offset)
    try:
        return local + timedelta(seconds=1 if leap else 0) + extra
    except OverflowError:  # 9999-12-31T23:59:60Z: valid text, past datetime's range
        return datetime.max.replace(tzinfo=UTC)


def is_date(text: str) -> bool:
    """RFC 3339 full-date: a real calendar day."""
    match = _DATE_RE.fullmatch(text)
    return match is not None and _valid_date(match)


def is_time(text: str) -> bool:
    """RFC 3339 full-time: a real clock time with a mandatory offset."""
    match = _TIME_RE.fullmatch(text)
    return match is not None and _clock(match) is not None


def is_date_time(text: str) -> bool:
    """RFC 3339 date-time (year 0000 included, which `datetime` cannot hold)."""
    match = _DATE_TIME_RE.fullmatch(text)
    return match is not None and _valid_date(match) and _clock(match) is not None


def _valid_date(match: re.Match[str]) -> bool:
    """RFC 3339 full-date: year 0000 included (a leap year in the proleptic calendar)."""
    year, month, day = int(match["year"]), int(match["month"]), int(match["day"])
    if not 1 <= month <= 12:
        return False
    days = 29 if month == 2 and calendar.isleap(year) else _DAYS_IN_MONTH[month - 1]
    return 1 <= day <= days


def _clock(match: re.Match[str]) -> tuple[int, int, int, int, timezone] | None:
    hour, minute, second = int(match["hour"]), int(match["minute"]), int(match["second"])
    if hour > 23 or minute > 59 or second > 60:
        return None
    if match["utc"]:
        offset_minutes = 0
    else:
        off_hour, off_minute = int(match["off_hour"]), int(match["off_minute"])
        if off_hour > 23 or off_minute > 59:
            return None
        offset_minutes = (off_hour * 60 + off_minute) * (-1 if match["sign"] == "-" else 1)
    if second == 60 and (hour * 60 + minute - offset_minutes) % 1440 != 23 * 60 + 59:
        return None  # a leap second exists only at 23:59:60 UTC
    fraction = match["fraction"]
    micro = int((fraction[1:] + "000000")[:6]) if fraction else 0
    offset = UTC if offset_minutes == 0 else timezone(timedelta(minutes=offset_minutes))
    return hour, minute, second, micro, offset
