"""What `explain` says of a record's parts (toolguard/explain/render.py)."""

from __future__ import annotations

from typing import Any

import pytest

from toolguard.explain import render

ATTEMPT = {"number": 1, "outcome": "failure", "duration_ms": 3.5}
ATTEMPT |= {"stdout_size": 0, "stderr_size": 0}


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"exit_status": 2}, "exit status 2; 0 bytes out; failure; 3.5 ms"),
        ({"signal": 9}, "killed by signal 9; 0 bytes out; failure; 3.5 ms"),
        ({}, "exit status not recorded; 0 bytes out; failure; 3.5 ms"),
        (
            {"exit_status": 1, "layer": "exit_status"},
            "exit status 1; 0 bytes out; exit_status: not recorded (not recorded); 3.5 ms",
        ),
        (
            {"exit_status": 1, "layer": "parse", "reason": "truncated", "error_code": "X"},
            "exit status 1; 0 bytes out; parse: truncated (X); 3.5 ms",
        ),
    ],
)
def test_an_attempt_is_told_without_python_s_none(extra: dict[str, Any], said: str) -> None:
    """A member a hand-edited log leaves out is said to be unrecorded, never shown as `None`."""
    assert render._attempt({**ATTEMPT, **extra}) == said
