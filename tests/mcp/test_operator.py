"""operator.py: diagnostics never block the relay; the server's stderr arrives escaped."""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
from pathlib import Path

from toolguard.contract import load_contract
from toolguard.mcp.operator import OperatorChannel, Recent, relay_server_stderr
from toolguard.pipeline import check

REPO = Path(__file__).resolve().parents[2]


def test_a_full_channel_drops_and_counts_instead_of_blocking() -> None:
    """With a stderr pipe nobody reads, thousands of writes return at once; drops are counted."""
    read, write = os.pipe()
    try:
        with os.fdopen(write, "w", closefd=False) as stuck:
            channel = OperatorChannel(stuck, "rich", capacity=4096)
            started = time.monotonic()
            for number in range(5000):
                channel.write(f"line {number:06d} {'x' * 100}\n")
            assert time.monotonic() - started < 5  # a blocking write would never return
            assert channel.dropped > 0
            channel.close()
    finally:
        os.close(write)
        os.close(read)


def test_a_hole_in_the_diagnostics_is_told_where_it_is() -> None:
    """Lines dropped and then stderr read again: a notice (event `gap`) comes first; the
    closing notice (event `dropped`) counts them all."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    caught_up = b""
    try:
        with os.fdopen(write, "w", closefd=False) as slow:
            channel = OperatorChannel(slow, "json", capacity=4096)
            shared = channel._channel
            shared._free = lambda _fd: 0  # type: ignore[method-assign] # the reader fell behind
            while channel.dropped < 3:
                channel.write(f"{'x' * 100}\n")
            del shared._free  # and is back: it reads till nothing waits
            for _ in range(3_000):
                with contextlib.suppress(BlockingIOError):
                    caught_up += os.read(read, 1 << 16)
                if not shared._queue and not shared._in_flight:
                    break
                time.sleep(0.01)
            channel.write("after\n")
            channel.close()
            with contextlib.suppress(BlockingIOError):
                caught_up += os.read(read, 1 << 16)
    finally:
        os.close(write)
        os.close(read)
    lines = caught_up.decode().splitlines()
    notice = json.loads(lines[lines.index("after") - 1])
    assert (notice["outcome"], notice["event"]) == ("notice", "gap")
    assert notice["message"].startswith("3 diagnostic lines were dropped here")
    closing = json.loads(lines[-1])  # JSON too, as every line in this mode: the count in all
    assert (closing["outcome"], closing["event"]) == ("notice", "dropped")
    assert closing["message"].startswith("3 diagnostic lines were dropped in all")


def test_notices_are_escaped_in_both_formats() -> None:
    """A notice quoting hostile text shows its escape sequences, not their effect."""
    for mode in ("rich", "json"):
        stream = io.StringIO()
        channel = OperatorChannel(stream, mode)
        channel.notice("event", "bad \x1b[2J text")
        channel.close()
        assert "\x1b" not in stream.getvalue()
        assert "\\x1b[2J" in stream.getvalue()


def test_the_servers_stderr_is_relayed_line_by_line_escaped_and_bounded() -> None:
    """Each line is prefixed and escaped; an over-long one is cut and says so."""
    read, write = os.pipe()
    os.write(write, b"hello \x1b[31mred\x1b[0m\n" + b"x" * 10_000 + b"\n\xff\xfe bad utf-8\n")
    os.close(write)
    stream = io.StringIO()
    channel = OperatorChannel(stream, "rich")
    with os.fdopen(read, "rb") as server_stderr:
        relay_server_stderr(server_stderr, channel)
    channel.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "toolguard: server: hello \\x1b[31mred\\x1b[0m"
    assert "[rest of the line dropped]" in lines[1] or "more characters" in lines[1]
    assert len(lines[1]) < 2000
    assert lines[2].startswith("toolguard: server: ")


class _Timed(io.StringIO):
    """A stderr that notes when it was first written."""

    first: float | None = None

    def write(self, text: str) -> int:
        if self.first is None:
            self.first = time.monotonic()
        return super().write(text)


def test_a_steady_stream_of_lines_is_written_while_it_lasts() -> None:
    """Calls that never pause still see their diagnostics written, round by round."""
    contract = load_contract(REPO / "examples" / "review_status" / "contract.toml")
    raw = (REPO / "examples" / "review_status" / "response.json").read_bytes()
    diagnostics = check(contract, raw, context={"change_id": "CR-1042"}).diagnostics
    stream = _Timed()
    channel = OperatorChannel(stream, "rich")
    ends = time.monotonic() + 1.0
    while time.monotonic() < ends:
        channel.render(diagnostics)
    assert stream.first is not None
    assert stream.first < ends
    channel.close()


def test_recent_notices_are_given_once_within_a_bounded_memory() -> None:
    """A repeat is recognised; past the capacity the oldest is forgotten, never kept for good."""
    recent = Recent(capacity=8)
    assert recent.first("removed tool 'a'")
    assert not recent.first("removed tool 'a'")
    for number in range(1000):
        assert recent.first(f"removed tool {number}")
    assert len(recent) == 8
    assert not recent.first("removed tool 999")
    assert recent.first("removed tool 'a'")  # forgotten: told again
