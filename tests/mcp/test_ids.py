"""ids.py: requests in flight, taken once, by whoever answers them."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from toolguard.contract import load_contract
from toolguard.mcp.calls import Guard, admit
from toolguard.mcp.ids import InFlight, Pending

PROBE = Path(__file__).resolve().parents[1] / "data" / "mcp" / "probe" / "contract.toml"


def _pending(request_id: int, timeout: float) -> Pending:
    guard = Guard(load_contract(PROBE), None)
    params = {"name": "probe", "arguments": {"zone": "UTC"}}
    return Pending("tools/call", admit(guard, "probe", request_id, params, timeout))


def test_an_entry_is_taken_once() -> None:
    """The answer takes it; a second answer (or a timeout) finds nothing."""
    flight = InFlight()
    assert flight.claim((False, 1), "ping")
    assert not flight.claim((False, 1), "ping")
    flight.settle((False, 1), Pending("ping"))
    assert flight.take((False, 1)) == Pending("ping")
    assert flight.take((False, 1)) is None


def test_expired_calls_are_taken_at_their_deadline() -> None:
    """take_expired waits for the earliest deadline and returns only what has passed it."""
    flight = InFlight()
    flight.settle((False, 1), _pending(1, 0.2))
    flight.settle((False, 2), _pending(2, 30))
    started = time.monotonic()
    (late,) = flight.take_expired()
    assert late.jsonrpc_id == 1
    assert 0.1 < time.monotonic() - started < 5
    assert [call.jsonrpc_id for call in flight.take_calls()] == [2]


def test_a_call_added_while_the_watchdog_waits_is_still_timed() -> None:
    """The watchdog, waiting with nothing in flight, still sees a new call's deadline."""
    flight = InFlight()
    found: list[int | str] = []
    watchdog = threading.Thread(
        target=lambda: found.extend(c.jsonrpc_id for c in flight.take_expired())
    )
    watchdog.start()
    time.sleep(0.1)
    flight.settle((False, 7), _pending(7, 0.1))
    watchdog.join(5)
    assert found == [7]


def test_close_ends_the_wait() -> None:
    """close(): take_expired returns nothing, at once."""
    flight = InFlight()
    flight.settle((False, 1), _pending(1, 60))
    threading.Timer(0.1, flight.close).start()
    assert flight.take_expired() == []


def test_server_requests_are_kept_apart() -> None:
    """A server request id never answers, nor is answered by, a client request id."""
    flight = InFlight()
    flight.server_request((False, 1))
    assert flight.take((False, 1)) is None
    assert flight.server_answered((False, 1))
    assert not flight.server_answered((False, 1))


def test_in_flight_requests_are_bounded() -> None:
    """Past MAX_IN_FLIGHT, a new request of either side is not held (memory stays bounded)."""
    from toolguard.mcp import ids  # noqa: PLC0415

    flight = InFlight()
    for number in range(ids.MAX_IN_FLIGHT):
        assert flight.claim((False, number), "ping")
        assert flight.server_request((False, number))
    assert not flight.claim((False, -1), "ping")
    assert not flight.server_request((False, -1))
    assert flight.take((False, 0)) is not None
    assert flight.claim((False, -1), "ping")
