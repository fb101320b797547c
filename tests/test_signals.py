"""signals.py: the name a diagnostic gives the signal that ended a child."""

from __future__ import annotations

import signal

from toolguard.signals import signal_name


def test_a_signal_with_a_name_is_named() -> None:
    """SIGTERM is told by its name."""
    assert signal_name(signal.SIGTERM) == "SIGTERM"


def test_a_signal_without_a_name_is_told_by_its_number() -> None:
    """A number no signal has here (a real-time signal, say) is `signal N`, never an error."""
    assert signal_name(1000) == "signal 1000"
