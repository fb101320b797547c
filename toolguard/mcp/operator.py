"""The operator's channel: stderr that never blocks the relay, and the server's stderr on it.

MCP clients often never read a server's stderr. A blocking write there would stall the relay
once the pipe fills, so diagnostics go to a bounded queue that one thread drains into stderr;
what does not fit is dropped and counted, and the count is reported at exit. The server's own
stderr is read line by line within a bound and relayed through the same channel, escaped.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from typing import IO

from toolguard.limits import discard_rest, read_line
from toolguard.text import clean

CAPACITY = 1024  # queued writes before new ones are dropped
SERVER_LINE = 4096  # bytes of one server stderr line kept; the rest is dropped
_SHOWN = 1024
_CLOSE_WAIT = 1.0  # seconds to let queued diagnostics out at exit


class OperatorChannel:
    """A file-like stderr for `report`: writes are queued, never block, and may be dropped.

    NOTE: the seam for "Trust boundaries" (serve's operator channel): swap in the shared
    non-blocking writer when it lands; this one is the minimal version `mcp` needs now.
    """

    def __init__(self, stream: IO[str] | None, mode: str, capacity: int = CAPACITY) -> None:
        self.mode = mode
        self.dropped = 0
        self._stream = stream
        self._queue: queue.Queue[str | None] = queue.Queue(capacity)
        self._thread = threading.Thread(target=self._drain, name="operator", daemon=True)
        self._thread.start()

    def write(self, text: str) -> int:
        """Queue `text`; drop it (and count it) if the queue is full."""
        try:
            self._queue.put_nowait(text)
        except queue.Full:
            self.dropped += 1
        return len(text)

    def flush(self) -> None:
        """Nothing to do: the writer thread flushes."""

    def isatty(self) -> bool:
        """Never a terminal: diagnostics are written as plain lines."""
        return False

    def notice(self, event: str, message: str) -> None:
        """One line about the relay itself (a dropped line, a removed tool), escaped."""
        if self.mode == "json":
            record = {"outcome": "notice", "event": event, "message": clean(message)}
            self.write(json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n")
        else:
            self.write(f"toolguard: mcp: {clean(message)}\n")

    def close(self) -> None:
        """Let queued lines out for a moment, then say how many were dropped."""
        with contextlib.suppress(queue.Full):
            self._queue.put(None, timeout=_CLOSE_WAIT)
        self._thread.join(_CLOSE_WAIT)
        if self.dropped and self._stream is not None and not self._thread.is_alive():
            with contextlib.suppress(OSError, ValueError):
                self._stream.write(
                    f"toolguard: mcp: {self.dropped} diagnostic lines were dropped: "
                    "nobody read stderr fast enough\n"
                )
                self._stream.flush()

    def _drain(self) -> None:
        while (text := self._queue.get()) is not None:
            if self._stream is None:
                continue
            try:
                self._stream.write(text)
                self._stream.flush()
            except (OSError, ValueError):
                self._stream = None  # stderr is gone: keep draining, write nothing


def relay_server_stderr(stream: IO[bytes], channel: OperatorChannel) -> None:
    """Copy the server's stderr to the channel, line by line, escaped and bounded."""
    with contextlib.suppress(OSError, ValueError):
        while True:
            line, over_long = read_line(stream, SERVER_LINE)
            if not line:
                return
            if over_long:
                discard_rest(stream)
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if over_long:
                text += " [rest of the line dropped]"
            if channel.mode == "json":
                channel.notice("server_stderr", text[:_SHOWN])
            else:
                channel.write(f"toolguard: server: {clean(text, _SHOWN)}\n")
