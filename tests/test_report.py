"""Operator diagnostics on stderr: the closing line of a channel that dropped lines."""

from __future__ import annotations

import io
import json

from toolguard import report


def test_dropped_lines_are_reported_as_one_json_line() -> None:
    """JSON mode: an object a program can count from (`outcome` "dropped", `count`)."""
    stream = io.StringIO()
    report.dropped(4876, "json", stream)
    line = json.loads(stream.getvalue())
    assert (line["outcome"], line["count"]) == ("dropped", 4876)
    assert stream.getvalue().count("\n") == 1


def test_dropped_lines_are_reported_as_a_warning_for_people() -> None:
    """Rich mode: one line a person reads as a warning, with the count."""
    stream = io.StringIO()
    report.dropped(3, "rich", stream)
    assert stream.getvalue() == (
        "toolguard: warning: 3 diagnostics line(s) dropped: stderr was not being read\n"
    )
