"""ids.py: requests in flight, taken once, by whoever answers them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

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


def test_a_refused_request_frees_its_id() -> None:
    """settle(key, None): the request was answered by toolguard, its id may be used again."""
    flight = InFlight()
    assert flight.claim((False, 1), "resources/read")
    flight.settle((False, 1), None)
    assert not flight.holds((False, 1))
    assert flight.take((False, 1)) is None
    assert flight.claim((False, 1), "ping")


def test_expired_calls_are_taken_at_their_deadline() -> None:
    """take_expired takes only what has passed its deadline, and tells the next one."""
    flight = InFlight()
    flight.settle((False, 1), _pending(1, 0.2))
    flight.settle((False, 2), _pending(2, 30))
    flight.settle((False, 3), Pending("ping"))  # not a guarded call: never timed
    now = time.monotonic()
    assert flight.take_expired(now) == ([], pytest.approx(now + 0.2, abs=0.1))
    late, upcoming = flight.take_expired(now + 1)
    assert [call.jsonrpc_id for call in late] == [1]
    assert upcoming == pytest.approx(now + 30, abs=0.1)
    assert flight.take_expired(now + 1) == ([], upcoming)
    assert flight.take((False, 2)) is not None
    assert flight.take_expired(now + 60) == ([], None)
    assert flight.take((False, 3)) == Pending("ping")


def test_take_all_takes_every_request_and_abandons_each_id() -> None:
    """Guarded or not, every request in flight is taken; each id waits for its late answer."""
    flight = InFlight()
    flight.settle((False, 1), _pending(1, 30))
    flight.settle((True, "r"), Pending("resources/read"))
    taken = flight.take_all("failed as a line may have been its answer")
    assert [(key, pending.method) for key, pending in taken] == [
        ((False, 1), "tools/call"),
        ((True, "r"), "resources/read"),
    ]
    assert flight.take((False, 1)) is None
    assert flight.abandoned((False, 1))
    late = flight.late((True, "r"))
    assert late == "a resources/read request, failed as a line may have been its answer"


def test_server_requests_are_kept_apart() -> None:
    """A server request id never answers, nor is answered by, a client request id."""
    flight = InFlight()
    flight.server_request((False, 1))
    assert flight.take((False, 1)) is None
    assert flight.server_answered((False, 1))
    assert not flight.server_answered((False, 1))


def test_in_flight_requests_are_bounded() -> None:
    """Past 4,096 (docs/mcp.md), a new request of either side is not held (memory stays
    bounded); refused for that alone, its id is not taken for an abandoned one."""
    flight = InFlight()
    for number in range(4_096):
        assert flight.claim((False, number), "ping")
        assert flight.server_request((False, number))
    assert not flight.claim((False, -1), "ping")
    assert not flight.server_request((False, -1))
    assert not flight.abandoned((False, -1))
    assert flight.server_request((False, 0))  # an id the server already awaits an answer to
    assert flight.take((False, 0)) is not None
    assert flight.claim((False, -1), "ping")


def test_an_abandoned_id_is_held_until_its_late_answer() -> None:
    """Given up on, an id is not free: `late` names it once, then it is."""
    flight = InFlight()
    assert flight.claim((False, 1), "ping")
    flight.settle((False, 1), Pending("ping"))
    assert not flight.abandoned((False, 1))  # in flight, awaiting its answer
    assert flight.take((False, 1)) is not None
    flight.abandon((False, 1), "a ping")
    assert flight.holds((False, 1))
    assert not flight.claim((False, 1), "ping")
    assert flight.late((False, 1)) == "a ping"
    assert flight.late((False, 1)) is None
    assert flight.claim((False, 1), "ping")


def test_abandoned_ids_are_bounded() -> None:
    """Past 4,096 abandoned ids (docs/mcp.md), the oldest is forgotten (memory stays bounded)."""
    flight = InFlight()
    for number in range(4_096 + 1):
        flight.abandon((False, number), str(number))
    assert not flight.holds((False, 0))
    assert flight.holds((False, 1))
    assert flight.abandoned((False, 4_096))


def test_a_timed_out_call_is_abandoned() -> None:
    """take_expired leaves the call's id held: the server may still answer it."""
    flight = InFlight()
    flight.settle((False, 1), _pending(1, 0.2))
    late, _ = flight.take_expired(time.monotonic() + 1)
    assert [call.jsonrpc_id for call in late] == [1]
    assert flight.holds((False, 1))
    assert "timed out" in (flight.late((False, 1)) or "")


def test_a_long_method_is_held_clipped() -> None:
    """Whatever a client names its requests, what 4,096 of them (in flight or abandoned) hold
    stays small, and a clipped method equals no method toolguard acts on."""
    flight = InFlight()
    method = "tools/list" + "x" * (1 << 20)
    assert flight.claim((False, 1), method)
    flight.settle((False, 1), Pending(method))
    held = flight.take((False, 1))
    assert held is not None
    assert len(held.method) < 300
    assert held.method.startswith("tools/list")
    assert held.method.endswith("...")
    assert Pending("tools/list").method == "tools/list"
    held_whole = "x" * 256  # docs/mcp.md: longer than 256 characters is held clipped
    assert Pending(held_whole).method == held_whole
    assert Pending(held_whole + "y").method == f"{held_whole}..."
