"""RFC 3339 dates and times, parsed for real: shared by the `format` checks and freshness rules.

A regex that looks like a timestamp accepts 2026-02-30; these functions check the calendar,
the clock (a leap second only at 23:59:60 UTC) and the offset, and take ASCII digits only.
The grammar (`full-date`, `full-time`, `date-time` = full-date `T` full-time):

    YYYY-MM-DD   HH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)   (T, t, Z and z either case)

NOTE: read by position, not by a regular expression: compiling the date-time pattern alone
cost a one-shot check a thirtieth of its start-up (`tests/test_rfc3339.py` holds the
expressions this reader matches exactly, and compares the two on generated text).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the same classes: `datetime` re-exports the C module's
    from datetime import UTC as UTC  # noqa: PLC0414 - re-exported for mypy
    from datetime import datetime as datetime  # noqa: PLC0414
    from datetime import timedelta as timedelta  # noqa: PLC0414
    from datetime import timezone as timezone  # noqa: PLC0414
else:
    try:  # NOTE: `datetime` runs its pure-Python twin before importing this C module
        from _datetime import datetime, timedelta, timezone
    except ImportError:  # pragma: no cover - an interpreter without the C module
        from datetime import datetime, timedelta, timezone
    UTC = timezone.utc  # noqa: UP017 - `datetime.UTC` is this, without importing `datetime`

_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_DATE_LENGTH = 10  # YYYY-MM-DD
_CLOCK_LENGTH = 8  # HH:MM:SS
# hour, minute, second, the fraction's digits ("" if none), offset minutes (None: Z)
_Clock = tuple[int, int, int, str, int | None]


def parse_date_time(text: str) -> datetime | None:
    """Return the aware instant `text` denotes, or None if it is not an RFC 3339 date-time.

    Digits past the microsecond are truncated (`instant_bounds` also gives the ceiling, for a
    bound check that must not under-estimate an instant). A leap second (23:59:60 UTC), with
    any fraction, is returned as the first instant of the next minute.
    """
    bounds = instant_bounds(text)
    if bounds is None:
        return None
    return bounds[0]


def instant_bounds(text: str) -> tuple[datetime, datetime] | None:
    """The instant `text` denotes truncated and rounded up to the microsecond, read once.

    The first is `parse_date_time`'s; a freshness rule needs both.
    """
    parts = _date_time(text)
    if parts is None:
        return None
    (year, month, day), (hour, minute, second, fraction, offset_minutes) = parts
    if year == 0:
        return None  # a valid date-time, but no instant `datetime` can hold
    leap = second == 60
    # NOTE: a leap second's fraction is dropped: 23:59:60.9 came before 00:00:00.0, which a
    # clock without leap seconds reads as that instant; read as 00:00:00.9 it would sort after
    # 00:00:00.5 and look up to a second younger than it is.
    micro = int((fraction + "000000")[:6]) if fraction and not leap else 0
    offset = UTC if not offset_minutes else _zone(offset_minutes)
    local = datetime(year, month, day, hour, minute, 59 if leap else second, micro, offset)
    beyond_micro = not leap and len(fraction) > 6 and fraction[6:].strip("0")
    if not leap and not beyond_micro:
        return local, local
    # NOTE: past datetime's range (9999-12-31T23:59:60Z; a ceiling a microsecond past the
    # last instant), a bound is the last instant: each bound on its own.
    try:
        floor = local + _ONE_SECOND if leap else local
    except OverflowError:
        return _LAST, _LAST
    try:
        return floor, floor + _ONE_MICROSECOND if beyond_micro else floor
    except OverflowError:
        return floor, _LAST


_LAST = datetime.max.replace(tzinfo=UTC)
_ONE_SECOND = timedelta(seconds=1)
_ONE_MICROSECOND = timedelta(microseconds=1)
_ZONES: dict[int, timezone] = {}


def _zone(offset_minutes: int) -> timezone:
    """The fixed offset, made once: at most 2,878 of them (-23:59 to +23:59)."""
    zone = _ZONES.get(offset_minutes)
    if zone is None:
        zone = _ZONES[offset_minutes] = timezone(timedelta(minutes=offset_minutes))
    return zone


def is_date(text: str) -> bool:
    """RFC 3339 full-date: a real calendar day."""
    return len(text) == _DATE_LENGTH and _date(text) is not None


def is_time(text: str) -> bool:
    """RFC 3339 full-time: a real clock time with a mandatory offset."""
    return _clock(text, 0) is not None


def is_date_time(text: str) -> bool:
    """RFC 3339 date-time (year 0000 included, which `datetime` cannot hold)."""
    return _date_time(text) is not None


def _date_time(text: str) -> tuple[tuple[int, int, int], _Clock] | None:
    if len(text) <= _DATE_LENGTH or text[_DATE_LENGTH] not in "Tt":
        return None
    date = _date(text)
    if date is None:
        return None
    clock = _clock(text, _DATE_LENGTH + 1)
    return None if clock is None else (date, clock)


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _date(text: str) -> tuple[int, int, int] | None:
    """The real calendar day spelt YYYY-MM-DD at the start of `text` (year 0000 included)."""
    # NOTE: the fields are read in one go, not one call each: this runs twice per freshness
    # rule and once per `date-time` format check.
    digits = text[0:4] + text[5:7] + text[8:10]
    if len(digits) != 8 or not _digits(digits) or text[4] != "-" or text[7] != "-":
        return None
    year, month, day = int(digits[0:4]), int(digits[4:6]), int(digits[6:8])
    if not 1 <= month <= 12:
        return None
    # Year 0000 is a leap year in the proleptic calendar, as every multiple of 400.
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = 29 if month == 2 and leap else _DAYS_IN_MONTH[month - 1]
    return (year, month, day) if 1 <= day <= days else None


def _clock(text: str, start: int) -> _Clock | None:
    """The full-time that is the whole of `text` from `start`, if it is a real clock time."""
    digits = text[start : start + 2] + text[start + 3 : start + 5] + text[start + 6 : start + 8]
    if len(digits) != 6 or not _digits(digits):
        return None
    if text[start + 2] != ":" or text[start + 5] != ":":
        return None
    hour, minute, second = int(digits[0:2]), int(digits[2:4]), int(digits[4:6])
    at = start + _CLOCK_LENGTH
    fraction = ""
    if text[at : at + 1] == ".":
        end = at + 1
        while end < len(text) and text[end] in "0123456789":
            end += 1
        fraction = text[at + 1 : end]
        if not fraction:
            return None
        at = end
    offset = _offset(text[at:])
    if offset is None or hour > 23 or minute > 59 or second > 60:
        return None
    if second == 60 and (hour * 60 + minute - offset) % 1440 != 23 * 60 + 59:
        return None  # a leap second exists only at 23:59:60 UTC
    return hour, minute, second, fraction, offset


def _offset(text: str) -> int | None:
    """Minutes east of UTC for `Z`, `z` or `+HH:MM` / `-HH:MM` (the whole of `text`), or None."""
    if text in {"Z", "z"}:
        return 0
    if len(text) != 6 or text[0] not in "+-" or text[3] != ":":
        return None
    digits = text[1:3] + text[4:6]
    if not _digits(digits):
        return None
    off_hour, off_minute = int(digits[0:2]), int(digits[2:4])
    if off_hour > 23 or off_minute > 59:
        return None
    minutes = off_hour * 60 + off_minute
    return -minutes if text[0] == "-" else minutes


def now() -> datetime:
    """The real clock, as an aware instant in UTC."""
    return datetime.now(UTC)
