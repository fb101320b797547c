"""signals.py: the name a diagnostic gives the signal that ended a child; a held stop."""

from __future__ import annotations

import signal
import threading

import pytest

from toolguard import signals
from toolguard.signals import Deferred, signal_name


def test_a_signal_with_a_name_is_named() -> None:
    """SIGTERM is told by its name."""
    assert signal_name(signal.SIGTERM) == "SIGTERM"


def test_a_signal_without_a_name_is_told_by_its_number() -> None:
    """A number no signal has here (a real-time signal, say) is `signal N`, never an error."""
    assert signal_name(1000) == "signal 1000"


def test_a_stop_within_deferred_is_held_then_raised_on_the_way_out() -> None:
    """SIGTERM inside the context changes nothing there; leaving it raises the interrupt."""
    previous = signals.handle(signals.interrupt)
    reached = []

    def held() -> None:
        with Deferred():
            signal.raise_signal(signal.SIGTERM)
            reached.append("after the signal")

    try:
        with pytest.raises(KeyboardInterrupt):
            held()
        assert reached == ["after the signal"]
        assert signal.getsignal(signal.SIGTERM) is signals.noted  # handled once, as ever
    finally:
        signals.restore(previous)


def test_deferred_off_the_main_thread_does_nothing() -> None:
    """No handler can be set off the main thread: the context is a no-op, not an error."""
    failures: list[BaseException] = []

    def enter() -> None:
        try:
            with Deferred():
                pass
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread
            failures.append(exc)

    thread = threading.Thread(target=enter)
    thread.start()
    thread.join()
    assert failures == []
