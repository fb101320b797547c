"""`toolguard audit summary`: what a log says happened, counted, over a time window.

Every line is parsed and validated like `explain` does; a line that is not a valid record is
counted as malformed, never guessed at. Lines `screen` vouches for (what toolguard writes) are
read without the strict parser; every other line goes through `record.decode`, which decides.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from toolguard import rfc3339
from toolguard.audit import log, record
from toolguard.errors import UsageError
from toolguard.explain import screen

_DURATION = re.compile(r"([0-9]{1,9})([smhd])")  # NOTE: `\d` is any script's digit
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
_STAMP_LENGTH = len("2026-01-01T00:00:00.000000Z")
Row = tuple[str, str, str, str]  # tool, outcome, error code, layer ("-" where none)


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts per (tool, outcome, error code, layer) over the records in the window."""

    since: str | None
    until: str | None
    records: int = 0
    malformed: int = 0
    rows: Counter[Row] = field(default_factory=Counter)
    owner: int | None = None  # the log's owner, when it is not this user

    def totals(self, column: int) -> Counter[str]:
        """Counts per value of one column (0 tool, 1 outcome, 2 error code, 3 layer)."""
        totals: Counter[str] = Counter()
        for row, count in self.rows.items():
            totals[row[column]] += count
        return totals


_REPORT_EVERY = 1 << 20  # bytes read between two calls of `on_read`


def summarize(
    path: Path,
    since: str | None = None,
    until: str | None = None,
    on_read: Callable[[int], None] | None = None,
) -> Summary:
    """Count the valid records of the log whose timestamp is in [since, until).

    `on_read(bytes)` is told, about every MiB, how much more of the log was read (a
    progress bar; the last call covers the rest).
    """
    low, high = _bound(since), _bound(until)
    summary = Summary(since=low, until=high)
    records = malformed = unreported = 0
    try:
        for line in log.all_lines(path):
            unreported += log.MAX_RECORD_BYTES + 1 if line is None else len(line) + 1
            if on_read is not None and unreported >= _REPORT_EVERY:
                on_read(unreported)
                unreported = 0
            if line == b"":
                continue  # a blank line; None (a line too long to be a record) is malformed
            entry = None if line is None else screen.vouched(line) or record.decode(line)
            if entry is None:
                malformed += 1
                continue
            stamp = _canonical(entry["timestamp"])
            if (low is not None and stamp < low) or (high is not None and stamp >= high):
                continue
            records += 1
            summary.rows[_row(entry)] += 1
    except OSError as exc:
        raise UsageError(f"cannot read audit log {path}: {exc.strerror or exc}") from None
    if on_read is not None and unreported:
        on_read(unreported)
    return Summary(low, high, records, malformed, summary.rows, log.owner(path))


def _row(entry: dict[str, Any]) -> Row:
    return (
        entry["contract"]["tool"],
        entry["outcome"],
        entry.get("error_code", "-"),
        entry.get("layer", "-"),
    )


def _canonical(stamp: str) -> str:
    """A record's timestamp in toolguard's fixed width, so string order is time order.

    Records toolguard writes already are; one edited by hand would otherwise sort wrongly:
    `12:00:00Z` (no fraction) after `12:00:00.5Z`, a lowercase `t` after every `T` of its day,
    and a leap second `23:59:60.000000Z` before the `00:00:00Z` the `fresh` rule reads it as
    (its shorter spelling is read so). Only toolguard's own spelling is compared as written.
    """
    if len(stamp) == _STAMP_LENGTH and stamp[10] == "T" and stamp[17:19] != "60":
        return stamp
    parsed = rfc3339.parse_date_time(stamp)
    return stamp if parsed is None else record.timestamp(parsed)


def _bound(text: str | None) -> str | None:
    """An RFC 3339 instant or a duration back from now (30m, 24h, 7d), as a record timestamp."""
    if text is None:
        return None
    match = _DURATION.fullmatch(text)
    try:
        if match:
            seconds = int(match[1]) * _SECONDS[match[2]]
            instant = datetime.now(UTC) - timedelta(seconds=seconds)
        else:
            parsed = rfc3339.parse_date_time(text)
            if parsed is None:
                raise UsageError(
                    f"{text!r} is neither an RFC 3339 date-time nor a duration like 24h"
                )
            instant = parsed
        return record.timestamp(instant)
    except (OverflowError, ValueError):
        raise UsageError(f"{text!r} is out of the range of dates toolguard can compare") from None
