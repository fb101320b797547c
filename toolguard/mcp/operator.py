"""The operator's channel for `mcp`: diagnostics and notices that never block the relay.

MCP clients often never read a server's stderr. Lines go through the shared operator channel
(`toolguard/operator_channel.py`, as for `serve`): a writer thread drains a bounded queue and
what does not fit is dropped, counted, reported where the lines went missing once stderr is
read again (at most once per `GAP_EVERY` seconds), and reported in all at exit. The server's
own stderr is read line by line within a bound and relayed through the same channel, escaped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections import OrderedDict
from typing import IO

from toolguard import report
from toolguard.framing import Lines
from toolguard.operator_channel import CAPACITY
from toolguard.operator_channel import OperatorChannel as SharedChannel
from toolguard.polled_input import polled
from toolguard.result import Diagnostics
from toolguard.text import clean

SERVER_LINE = 4096  # bytes of one server stderr line kept; the rest is dropped
_SHOWN = 1024


class OperatorChannel:
    """`mcp`'s view of the shared channel: diagnostics, notices, and the closing count."""

    def __init__(self, stream: IO[str] | None, mode: str, capacity: int = CAPACITY) -> None:
        self.mode = mode
        self._channel = SharedChannel(
            stream, farewell=self._farewell, gap=self._gap, capacity=capacity
        )

    @property
    def stream(self) -> IO[str]:
        """A text stream for `report` functions: what is written until a flush is one line."""
        return self._channel.stream

    @property
    def dropped(self) -> int:
        """Lines the operator never got."""
        return self._channel.dropped

    def write(self, text: str) -> int:
        """Queue `text`; drop it (and count it) if it cannot wait."""
        self._channel.send(text)
        return len(text)

    def render(self, diagnostics: Diagnostics) -> None:
        """Queue one check's diagnostics, rendered as `check` renders them."""
        report.render_to(diagnostics, self.mode, self._channel.stream, self._channel.send)

    def notice(self, event: str, message: str) -> None:
        """One line about the relay itself (a dropped line, a removed tool), escaped."""
        self.write(self._notice_line(event, message))

    def _notice_line(self, event: str, message: str) -> str:
        message = message.removeprefix("toolguard: ")  # a refusal sent to the client, named
        if self.mode == "json":
            record = {"outcome": "notice", "event": event, "message": clean(message)}
            return json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n"
        return f"toolguard: mcp: {clean(message)}\n"

    def _gap(self, count: int) -> str:
        """The line the channel puts where `count` lines went missing (event `gap`)."""
        why = f"{count} diagnostic lines were dropped here: stderr was not read fast enough"
        return self._notice_line("gap", why)

    def _farewell(self, count: int) -> str:
        """The closing line when `count` lines were dropped in all (event `dropped`).

        Events as `serve`'s outcomes: `gap` where lines went missing, `dropped` for the count.
        """
        why = "stderr was not read (fast enough)"
        return self._notice_line("dropped", f"{count} diagnostic lines were dropped in all: {why}")

    def close(self) -> None:
        """Let queued lines out while the writer makes progress, then say what was dropped."""
        self._channel.close()


class Recent:
    """The notices given lately, so a repeated one is given once: a bounded memory.

    A server can name a new tool in every listing, for ever: the notices are kept by a
    16-byte digest, and past `capacity` the oldest is forgotten (it may then be given again).
    """

    def __init__(self, capacity: int = 4096) -> None:
        self._seen: OrderedDict[bytes, None] = OrderedDict()
        self._capacity = capacity

    def __len__(self) -> int:
        """How many notices are remembered."""
        return len(self._seen)

    def first(self, message: str) -> bool:
        """Whether `message` is new (it is remembered from now on)."""
        key = hashlib.blake2b(message.encode("utf-8", "replace"), digest_size=16).digest()
        if key in self._seen:
            self._seen.move_to_end(key)
            return False
        self._seen[key] = None
        if len(self._seen) > self._capacity:
            self._seen.popitem(last=False)
        return True


def relay_server_stderr(stream: IO[bytes], channel: OperatorChannel) -> None:
    """Copy the server's stderr to the channel, line by line, escaped and bounded."""

    def relay(line: bytes, over_long: bool) -> None:
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        if over_long:
            text += " [rest of the line dropped]"
        if channel.mode == "json":
            channel.notice("server_stderr", text[:_SHOWN])
        else:
            channel.write(f"toolguard: server: {clean(text, _SHOWN)}\n")

    lines = Lines(SERVER_LINE, relay)
    read = polled(stream, 0)  # its bytes as they come, never polled for
    with contextlib.suppress(OSError, ValueError):
        while chunk := read():
            lines.feed(chunk)
        lines.end()
